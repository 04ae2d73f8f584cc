/**
 * Entry point of the `a2a` binary (bin/a2a.js loads it).
 * @module
 */
import type { GenerateEntitiesOptions } from './cli/generate-entities.js'

const io = { stdout: process.stdout, stderr: process.stderr }
const args = process.argv.slice(2)

/**
 * The forms rerun after every schema change and in CI go straight to the command without loading
 * yargs, whose set-up was a third of a no-op run's start-up: these are the options yargs parses
 * from the same words.
 */
function bareGenerateEntities(): GenerateEntitiesOptions | undefined {
  if (args[0] !== 'generate' || args[1] !== 'entities') return undefined
  if (args.length === 2) return {}
  return args.length === 3 && args[2] === '--check' ? { check: true } : undefined
}

const bare = bareGenerateEntities()
// exitCode rather than process.exit(): piped stdout gets flushed before the process ends.
process.exitCode = bare ? await (await import('./cli/generate-entities.js')).runGenerateEntities(bare, io) : await (await import('./cli/index.js')).runA2a(args, io)
