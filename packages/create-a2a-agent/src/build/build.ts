/**
 * `npm run build`: the CLI bundled into dist/, so `a2a` starts without compiling TypeScript.
 * src/a2a.ts and src/create.ts are bundled by esbuild with the workspace sources they import
 * (@a2a-agent/*) and yargs; other npm packages stay imports (each must be a dependency of this
 * package), and code splitting keeps what a command imports lazily (prettier, the planner, Prisma)
 * out of start-up.
 * Files are named by content and dist/build.json, written last, names the entries and records the
 * sources read (see stamp.ts). The templates are copied into the package, which ships them.
 * `--if-stale` builds only when bin/launch.js would not run dist/ as it is.
 * @module
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import { join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { generatorCodeDigest, generatorSources } from '@a2a-agent/generators/inputs'
import * as esbuild from 'esbuild'
import { BUILD_INFO, DIST_DIR, PACKAGE_DIR, freshEntry, statKey } from '../../bin/launch.js'
import { buildDeclarations } from './declarations.js'
import { toPosix, writeAtomic } from './files.js'
import { withLock } from './lock.js'
import { inputsRecord, statTree } from './stamp.js'

const REPO = resolve(PACKAGE_DIR, '../..')
const GENERATOR = { src: join(REPO, 'generators/src'), packageJson: join(REPO, 'generators/package.json') }
const TEMPLATES = join(REPO, 'templates')
const SHIPPED_TEMPLATES = join(PACKAGE_DIR, 'templates')
/** Every folder the bundle's sources may come from, and the templates it ships. */
const WATCHED = [join(PACKAGE_DIR, 'src'), GENERATOR.src, join(REPO, 'packages/runtime/src'), TEMPLATES]
const WORKSPACE_MANIFESTS = [GENERATOR.packageJson, join(REPO, 'packages/runtime/package.json')]
/** Files that steer the build (resolution, dependencies, the record's format) without being bundled. */
const STEERING = [join(PACKAGE_DIR, 'package.json'), join(PACKAGE_DIR, 'bin/launch.js'), ...WORKSPACE_MANIFESTS, join(REPO, 'tsconfig.json')]
/** The bins' entries, and `index`: the programmatic entry (package.json exports it as dist/index.js). */
const ENTRIES = { a2a: 'src/a2a.ts', create: 'src/create.ts', index: 'src/index.ts' }
const PROGRAMMATIC_ENTRY = join(DIST_DIR, 'index.js')
/** The workspace packages' export condition for their TypeScript sources, which the bundle takes. */
const SOURCE_CONDITION = '@a2a-agent/source'
/**
 * npm packages bundled rather than imported (devDependencies then). yargs is on every run's path:
 * importing it and parsing took ~100 ms over a bare `node` start, bundled ~45 ms (its dozens of
 * small modules cost more to resolve and load than to run). Its help texts are then always
 * English: y18n finds no locale files next to the bundle.
 */
const BUNDLED = ['yargs']

export interface BuildResult {
  entries: Record<string, string>
  files: number
  bytes: number
}

/** Builds dist/ and copies the templates; `clean` also deletes files of earlier builds. */
export async function build({ clean = false } = {}): Promise<BuildResult> {
  const before = statTree(WATCHED, STEERING)
  const { dependencies = {} } = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
  const result = await esbuild.build({
    absWorkingDir: PACKAGE_DIR,
    entryPoints: ENTRIES,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    outdir: DIST_DIR,
    entryNames: '[name]-[hash]',
    write: false,
    metafile: true,
    logLevel: 'silent',
    conditions: [SOURCE_CONDITION],
    define: { A2A_GENERATOR_CODE_DIGEST: JSON.stringify(await generatorCodeDigest(GENERATOR)) },
    plugins: [bundleWorkspace(dependencies)],
  })
  await mkdir(DIST_DIR, { recursive: true })
  const entries: Record<string, string> = {}
  let bytes = 0
  for (const file of result.outputFiles) {
    writeAtomic(file.path, file.contents)
    bytes += file.contents.byteLength
    const entryPoint = result.metafile.outputs[toPosix(relative(PACKAGE_DIR, file.path))]?.entryPoint
    const name = Object.entries(ENTRIES).find(([, source]) => source === entryPoint)?.[0]
    if (name) entries[name] = relative(DIST_DIR, file.path)
  }
  const missing = Object.keys(ENTRIES).filter((name) => entries[name] === undefined)
  // build.json without an entry would make every launch rebuild.
  if (missing.length > 0) throw new Error(`esbuild produced no output for entry ${missing.join(', ')}`)
  // A fixed name for package.json's exports; the content-named entry keeps concurrent readers safe.
  writeAtomic(PROGRAMMATIC_ENTRY, `export * from './${toPosix(entries.index!)}'\n`)
  const templates = copyTemplates(before)
  const read = Object.keys(result.metafile.inputs).map((path) => resolve(PACKAGE_DIR, path))
  // A bundled npm package changes with its version: its package.json stands for its files.
  const packages = [...new Set(read.flatMap((path) => packageManifest(path) ?? []))]
  for (const manifest of packages) before.set(manifest, statKey(relative(PACKAGE_DIR, manifest)))
  const inputs = inputsRecord(
    [
      ...read.filter((path) => packageManifest(path) === undefined),
      ...packages,
      ...(await generatorSources(GENERATOR.src)),
      ...templates,
      ...readdirSync(join(PACKAGE_DIR, 'src/build'))
        .filter((name) => !name.endsWith('.test.ts'))
        .map((name) => join(PACKAGE_DIR, 'src/build', name)),
      ...STEERING,
    ],
    before,
  )
  writeAtomic(BUILD_INFO, `${JSON.stringify({ entries, inputs }, null, 2)}\n`)
  if (clean) {
    const kept = new Set([BUILD_INFO, PROGRAMMATIC_ENTRY, join(DIST_DIR, '.lock'), ...result.outputFiles.map((file) => file.path)])
    for (const name of readdirSync(DIST_DIR)) if (!kept.has(join(DIST_DIR, name))) rmSync(join(DIST_DIR, name), { recursive: true, force: true })
  }
  return { entries, files: result.outputFiles.length, bytes }
}

/** Builds unless dist/ is current (then false); one process at a time, for launchers that race. */
export async function buildIfStale(): Promise<boolean> {
  const fresh = () => Object.keys(ENTRIES).every((name) => freshEntry(name) !== undefined)
  if (fresh()) return false
  await mkdir(DIST_DIR, { recursive: true })
  return withLock(join(DIST_DIR, '.lock'), async () => {
    // Another process may have built while this one waited.
    if (fresh()) return false
    await build()
    return true
  })
}

/**
 * What is bundled: the workspace's @a2a-agent/* sources, the BUNDLED npm packages and whatever
 * those import. Node built-ins and every other npm package stay imports. The published package gets
 * only its own dependencies installed, so each npm package left as an import must be one, at the
 * version the bundled workspace package pins (if it does).
 */
function bundleWorkspace(dependencies: Record<string, string>): esbuild.Plugin {
  const pinned = new Map<string, string>()
  for (const manifest of WORKSPACE_MANIFESTS) {
    const { dependencies: theirs = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }
    for (const [name, version] of Object.entries(theirs)) if (!name.startsWith('@a2a-agent/')) pinned.set(name, version)
  }
  return {
    name: 'bundle-workspace',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
        if (isBuiltin(path)) return { path, external: true }
        const name = path
          .split('/')
          .slice(0, path.startsWith('@') ? 2 : 1)
          .join('/')
        if (name.startsWith('@a2a-agent/') || BUNDLED.includes(name) || importer.split(sep).includes('node_modules')) return undefined
        const wanted = pinned.get(name)
        if (dependencies[name] !== undefined && (wanted === undefined || wanted === dependencies[name])) return { path, external: true }
        const entry = wanted === undefined ? `"${name}"` : `"${name}": "${wanted}"`
        return { errors: [{ text: `${relative(REPO, importer)} imports ${name}: add ${entry} to the dependencies of create-a2a-agent (package.json)` }] }
      })
    },
  }
}

/** `…/node_modules/<name>/package.json` for a file inside an npm package, else undefined. */
function packageManifest(path: string): string | undefined {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path)
  return match ? join(match[1]!, 'package.json') : undefined
}

/** Mirrors templates/ into the package (it ships them); returns every path copied from, folders included. */
function copyTemplates(before: Map<string, string>): string[] {
  const sources = [...before.keys()].filter((path) => path === TEMPLATES || path.startsWith(`${TEMPLATES}/`))
  const wanted = new Set<string>()
  for (const source of sources) {
    if (!statSync(source).isFile()) continue
    const target = join(SHIPPED_TEMPLATES, relative(TEMPLATES, source))
    wanted.add(target)
    writeAtomic(target, readFileSync(source))
  }
  for (const entry of readdirSync(SHIPPED_TEMPLATES, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isFile() && !wanted.has(path)) rmSync(path, { force: true })
  }
  return sources
}

// On stderr: `npm pack --json` runs this as prepack, and its stdout must stay JSON.
async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--if-stale')) {
    console.error((await buildIfStale()) ? 'dist/ rebuilt' : 'dist/ is up to date')
    return
  }
  await mkdir(DIST_DIR, { recursive: true })
  const { entries, files, bytes } = await withLock(join(DIST_DIR, '.lock'), async () => {
    const result = await build({ clean: true })
    // Only for publishing: the bins never read them, so a rebuild before a run skips them.
    await buildDeclarations()
    return result
  })
  console.error(
    `dist/: ${Object.values(entries).join(', ')} and ${files - Object.keys(entries).length} chunks, ${(bytes / 1024).toFixed(0)} kB; types in dist/types; templates/ copied`,
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  })
}
