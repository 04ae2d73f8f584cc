/**
 * Plan and manifest paths are POSIX and relative to the app root. Both come from outside the
 * writer (the manifest is a committed file anyone can edit), so every path is checked before it
 * is joined: the writer must never write or delete outside the app.
 * @module
 */
import { join } from 'node:path'
import { GeneratorError } from '../errors.js'

export function assertSafePath(path: string, source: string): void {
  const segments = path.split('/')
  const unsafe =
    path === '' ||
    path.startsWith('/') ||
    path.includes('\\') ||
    path.includes('\0') ||
    /^[a-zA-Z]:/.test(path) ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..')
  if (unsafe) {
    throw new GeneratorError(`${source} lists an unsafe path ${JSON.stringify(path)}: expected a POSIX path relative to the app root, without "." or ".." segments.`)
  }
}

export function resolveInApp(appRoot: string, path: string): string {
  return join(appRoot, ...path.split('/'))
}
