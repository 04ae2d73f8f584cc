/**
 * Entry point of the `create-a2a-agent` binary (bin/create-a2a-agent.js loads it): asks in a
 * terminal, takes the defaults otherwise.
 * @module
 */
import { createInterface } from 'node:readline/promises'
import { hideBin } from 'yargs/helpers'
import type { Ask } from './scaffold/options.js'
import { runCreate } from './scaffold/index.js'

const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY)
const prompts = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined
const ask: Ask | undefined = prompts && ((question) => prompts.question(question))

try {
  // exitCode rather than process.exit(): piped stdout gets flushed before the process ends.
  process.exitCode = await runCreate(hideBin(process.argv), { stdout: process.stdout, stderr: process.stderr }, { ask })
} finally {
  prompts?.close()
}
