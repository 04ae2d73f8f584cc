/**
 * Starts a bin of this package from dist/, the CLI bundled into JavaScript (no TypeScript compiler
 * at start-up). Published, the package has no src/ and dist/ is all there is. In this repository,
 * dist/build.json records every source the build read (size, mtime and ctime), and dist/ runs only
 * while each still matches: otherwise the build runs first, and if it cannot, the sources run
 * through tsx. So a stale dist/ is never run.
 * @module
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { register } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))
export const DIST_DIR = join(PACKAGE_DIR, 'dist')
export const BUILD_INFO = join(DIST_DIR, 'build.json')

/**
 * What build.json records of a source file (a path relative to the package). ctime is set by the
 * kernel on every change, so even an edit that restores the old mtime and size shows.
 */
export function statKey(path) {
  const stats = statSync(join(PACKAGE_DIR, path), { throwIfNoEntry: false })
  return stats ? `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : 'missing'
}

function readBuildInfo() {
  try {
    return JSON.parse(readFileSync(BUILD_INFO, 'utf8'))
  } catch {
    return undefined
  }
}

/** The URL of entry `name` (`a2a`, `create`) in dist/ when it is built from the current sources. */
export function freshEntry(name) {
  const info = readBuildInfo()
  const file = info?.entries?.[name]
  if (typeof file !== 'string' || !existsSync(join(DIST_DIR, file))) return undefined
  for (const [path, key] of Object.entries(info.inputs ?? {})) if (statKey(path) !== key) return undefined
  return pathToFileURL(join(DIST_DIR, file)).href
}

// A module resolve hook: apps linked to the workspace packages (examples/, apps scaffolded inside the
// repository) import them under the "@a2a-agent/source" condition, so their sources load.
const SOURCE_CONDITION_HOOK = `export async function resolve(specifier, context, next) {
  const conditions = context.conditions ?? []
  return next(specifier, conditions.includes('@a2a-agent/source') ? context : { ...context, conditions: [...conditions, '@a2a-agent/source'] })
}`

/** Runs entry `name`: src/<name>.ts, as built into dist/. */
export async function launch(name) {
  if (!existsSync(join(PACKAGE_DIR, 'src'))) {
    const file = readBuildInfo()?.entries?.[name]
    if (typeof file !== 'string') throw new Error(`${BUILD_INFO}: no entry "${name}"; this copy of the package is incomplete, reinstall it`)
    return import(pathToFileURL(join(DIST_DIR, file)).href)
  }
  // A checkout of this repository: what the CLI imports from the app (src/entities.ts, src/db.ts)
  // may import the workspace packages, whose dist/ is not built here; resolve their sources.
  register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION_HOOK)}`)
  const entry = freshEntry(name) ?? (await rebuilt(name))
  if (entry) return import(entry)
  const { tsImport } = await import('tsx/esm/api')
  return tsImport(`../src/${name}.ts`, import.meta.url)
}

// The build is TypeScript too, so it runs through tsx; only after a source changed.
async function rebuilt(name) {
  try {
    if (process.stderr.isTTY) process.stderr.write('(sources changed since the last build: building the CLI into dist/ first)\n')
    const { tsImport } = await import('tsx/esm/api')
    const { buildIfStale } = await tsImport('../src/build/build.ts', import.meta.url)
    await buildIfStale()
    return freshEntry(name)
  } catch (error) {
    if (process.env.A2A_DEBUG) process.stderr.write(`a2a: building dist/ failed, running the sources: ${error?.stack ?? error}\n`)
    return undefined
  }
}
