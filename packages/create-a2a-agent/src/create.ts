/**
 * Entry point of the `create-a2a-agent` binary: a placeholder until the scaffolder ships.
 * @module
 */
process.stderr.write('create-a2a-agent: scaffolding arrives in a later release\n')
process.exitCode = 1
