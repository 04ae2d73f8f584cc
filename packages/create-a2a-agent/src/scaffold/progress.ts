/**
 * How a long step shows while it runs: a spinner in a terminal (prompts.ts), one line each
 * otherwise, so piped output and CI logs read as a plain record.
 * @module
 */
import type { Io } from '../cli/io.js'

export type Progress = <T>(label: string, work: () => Promise<T>) => Promise<T>

/** `- label… done (1.2 s)`, or `failed`, one line per step. */
export function lineProgress(io: Io): Progress {
  return async (label, work) => {
    io.stdout.write(`- ${label}… `)
    const started = Date.now()
    try {
      const result = await work()
      io.stdout.write(`done (${((Date.now() - started) / 1000).toFixed(1)} s)\n`)
      return result
    } catch (error) {
      io.stdout.write('failed\n')
      throw error
    }
  }
}
