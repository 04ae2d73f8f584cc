/**
 * File helpers of the build: writes that a concurrent reader (a CLI run, another build) sees either
 * before or after, never half done.
 * @module
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** Writes `content` to `path` through a temporary file and a rename; skips a file that already has it. */
export function writeAtomic(path: string, content: string | Uint8Array): void {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content
  const current = (() => {
    try {
      return readFileSync(path)
    } catch {
      return undefined
    }
  })()
  if (current?.equals(bytes)) return
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
  writeFileSync(temporary, bytes)
  renameSync(temporary, path)
}

export const toPosix = (path: string) => path.replaceAll('\\', '/')
