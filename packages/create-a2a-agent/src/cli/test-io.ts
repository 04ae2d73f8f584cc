/**
 * An `Io` that records what a command printed, for in-process CLI tests.
 * @module
 */
import type { Io } from './io.js'

export function captureIo(): { io: Io; stdout: () => string; stderr: () => string } {
  const out: string[] = []
  const err: string[] = []
  return {
    io: {
      stdout: { write: (chunk: string) => out.push(chunk) },
      stderr: { write: (chunk: string) => err.push(chunk) },
    },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  }
}
