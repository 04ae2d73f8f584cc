/**
 * The record of what a build read, which bin/launch.js compares with the files to tell a stale
 * dist/. Stats are taken before the build reads anything, so an edit racing a build makes its
 * record stale rather than the other way round.
 * @module
 */
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { PACKAGE_DIR, statKey } from '../../bin/launch.js'
import { toPosix } from './files.js'

export type Stats = Map<string, string>

/** statKey of every file and folder under `roots` and of every file in `files`; absolute paths as keys. */
export function statTree(roots: readonly string[], files: readonly string[]): Stats {
  const stats: Stats = new Map()
  const add = (path: string) => stats.set(path, statKey(relative(PACKAGE_DIR, path)))
  for (const root of roots) {
    add(root)
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) add(join(entry.parentPath, entry.name))
  }
  for (const file of files) add(file)
  return stats
}

/** The `inputs` of build.json: each path (relative to the package) with its stat from before the build. */
export function inputsRecord(paths: Iterable<string>, before: Stats): Record<string, string> {
  const record: Record<string, string> = {}
  for (const path of [...new Set(paths)].sort()) {
    const key = before.get(path)
    // Unstatted means unwatched: a later edit to it would go unnoticed.
    if (key === undefined) throw new Error(`the build read ${path}, outside the folders it watches; add its folder to WATCHED in build.ts`)
    record[toPosix(relative(PACKAGE_DIR, path))] = key
  }
  return record
}
