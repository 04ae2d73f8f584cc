/**
 * Entry point of the `a2a` binary (bin/a2a.js loads it).
 * @module
 */
import { hideBin } from 'yargs/helpers'
import { runA2a } from './cli/index.js'

// exitCode rather than process.exit(): piped stdout gets flushed before the process ends.
process.exitCode = await runA2a(hideBin(process.argv), { stdout: process.stdout, stderr: process.stderr })
