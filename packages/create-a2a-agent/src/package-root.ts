/**
 * This package's folder and version. Found by walking up to the nearest package.json, because this
 * module runs from `src/` (source) and from `dist/` (the bundle) at different depths.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function nearestPackage(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

export const PACKAGE_ROOT = nearestPackage(dirname(fileURLToPath(import.meta.url)))

export const { version: VERSION } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
