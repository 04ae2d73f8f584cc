/**
 * One build at a time: test runs start many CLI processes at once, and after an edit each would
 * rebuild. A folder is the lock (mkdir is atomic); one left by a killed build expires.
 * @module
 */
import { mkdirSync, rmSync, statSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

const EXPIRES_MS = 60_000
const POLL_MS = 50

/** Runs `work` holding the lock at `path`; waits while another process holds it. */
export async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(path)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const held = statSync(path, { throwIfNoEntry: false })
      if (held && Date.now() - held.mtimeMs > EXPIRES_MS) rmSync(path, { recursive: true, force: true })
      else await sleep(POLL_MS)
    }
  }
  try {
    return await work()
  } finally {
    rmSync(path, { recursive: true, force: true })
  }
}
