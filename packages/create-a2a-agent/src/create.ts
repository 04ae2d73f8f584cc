/**
 * Entry point of the `create-a2a-agent` binary (bin/create-a2a-agent.js loads it): asks in a
 * terminal (@clack/prompts, with a spinner on the long steps), takes the defaults otherwise.
 * @module
 */
import { hideBin } from 'yargs/helpers'
import { clackPrompter, spinnerProgress } from './scaffold/prompts.js'
import { runCreate } from './scaffold/index.js'

const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY)
const io = { stdout: process.stdout, stderr: process.stderr }
// exitCode rather than process.exit(): piped stdout gets flushed before the process ends.
process.exitCode = await runCreate(hideBin(process.argv), io, interactive ? { prompter: clackPrompter(), progress: spinnerProgress() } : {})
