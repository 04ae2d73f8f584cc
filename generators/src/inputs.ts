/**
 * The input fingerprint of `a2a generate entities`: one sha256 over everything a plan depends on —
 * the generator's own sources and templates, the resolved plan options, every Prisma schema file,
 * and the entities file with every module it imports (relative ones transitively, packages by
 * their package.json; workspace packages, which change without a version bump, by their source).
 * Equal fingerprints mean an equal plan, so a run may skip planning. Anything that cannot be
 * resolved or read makes the fingerprint unknown (`undefined`), and then nothing is skipped.
 * Node built-ins only: the CLI's fast path loads this without the planner's heavy modules.
 * @module
 */
import { createHash } from 'node:crypto'
import { readdir, readFile, realpath, stat } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PlanInput } from './plan/plan.js'
import { templatesRoot } from './templates-root.js'

/** Where the generator's own files are; a parameter only so tests can point at a copy. */
export interface GeneratorFiles {
  src: string
  templates: string
  packageJson: string
}

/**
 * The generator inside the bundled CLI, which ships without its sources: the digest of the ones it
 * was built from (`generatorCodeDigest`), and the templates it reads.
 */
export interface BundledGenerator {
  codeDigest: string
  templates: string
}

// Replaced by the CLI bundle's build (an esbuild define) with generatorCodeDigest() of the sources
// it bundles; undeclared when running from source.
declare const A2A_GENERATOR_CODE_DIGEST: string | undefined

function ownGenerator(): GeneratorFiles | BundledGenerator {
  const templates = join(templatesRoot(), 'entity')
  if (typeof A2A_GENERATOR_CODE_DIGEST === 'string') return { codeDigest: A2A_GENERATOR_CODE_DIGEST, templates }
  return { src: fileURLToPath(new URL('./', import.meta.url)), templates, packageJson: fileURLToPath(new URL('../package.json', import.meta.url)) }
}

/** `prisma` when that folder exists (a multi-file schema), else `prisma/schema.prisma`. */
export async function defaultSchemaPath(appRoot: string): Promise<string> {
  const folder = await stat(join(appRoot, 'prisma')).catch(() => undefined)
  return folder?.isDirectory() ? 'prisma' : 'prisma/schema.prisma'
}

/** The fingerprint of a plan's inputs; `undefined` when any of them cannot be read. */
export async function fingerprintInputs(input: PlanInput, generator?: GeneratorFiles | BundledGenerator): Promise<string | undefined> {
  try {
    const appRoot = resolve(input.appRoot)
    const entitiesFile = input.entitiesFile ?? 'src/entities.ts'
    const schemaPath = input.schemaPath ?? (await defaultSchemaPath(appRoot))
    const parts = new Map<string, string>()
    // Labels are relative paths, so the fingerprint does not depend on where the repository lives.
    const options = {
      entitiesFile,
      schemaPath,
      outDir: input.outDir ?? null,
      testDir: input.testDir ?? null,
      runtimeImport: input.runtimeImport ?? null,
      dbImport: input.dbImport ?? null,
    }
    parts.set('options', JSON.stringify(options))
    const [identity, schema, modules, appPackage, tsconfig, prismaConfig] = await Promise.all([
      generatorIdentity(generator ?? ownGenerator()),
      schemaFiles(appRoot, schemaPath),
      moduleGraph(appRoot, join(appRoot, entitiesFile)),
      // "type" decides how tsx loads the entities file.
      readFile(join(appRoot, 'package.json'), 'utf8').catch(() => ''),
      // Compiler options tsx applies to it.
      readFile(join(appRoot, 'tsconfig.json'), 'utf8').catch(() => ''),
      // Its seed command decides whether a2a plans the seed.
      readFile(join(appRoot, 'prisma.config.ts'), 'utf8').catch(() => ''),
    ])
    if (modules === undefined) return undefined
    for (const [label, text] of identity) parts.set(`generator:${label}`, text)
    for (const [label, text] of schema) parts.set(`schema:${label}`, text)
    for (const [label, text] of modules) parts.set(`module:${label}`, text)
    parts.set('app:package.json', appPackage)
    parts.set('app:tsconfig.json', tsconfig)
    parts.set('app:prisma.config.ts', prismaConfig)
    return digest(parts)
  } catch {
    return undefined
  }
}

/** The generator's code (its digest) and every template, as parts of the fingerprint. */
async function generatorIdentity(generator: GeneratorFiles | BundledGenerator): Promise<Map<string, string>> {
  const { templates } = generator
  const files = new Map<string, string>()
  const templateFiles = (await readdir(templates, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(templates, entry.name))
  await Promise.all([
    ('codeDigest' in generator ? Promise.resolve(generator.codeDigest) : generatorCodeDigest(generator)).then((code) => files.set('code', code)),
    ...templateFiles.map(async (path) => files.set(`templates/${toPosix(relative(templates, path))}`, await readFile(path, 'utf8'))),
  ])
  return files
}

/**
 * One digest of every non-test source file of the generator and its package.json (its pinned
 * dependencies). The CLI's build embeds it, so the bundle fingerprints like the sources it came from.
 */
export async function generatorCodeDigest({ src, packageJson }: Pick<GeneratorFiles, 'src' | 'packageJson'>): Promise<string> {
  const files = new Map<string, string>()
  await Promise.all([
    ...(await generatorSources(src)).map(async (path) => files.set(`src/${toPosix(relative(src, path))}`, await readFile(path, 'utf8'))),
    readFile(packageJson, 'utf8').then((text) => files.set('package.json', text)),
  ])
  return digest(files)
}

/** The generator's non-test source files (not its tests' fixtures either), absolute. */
export async function generatorSources(src: string): Promise<string[]> {
  return (await readdir(src, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(src, path).split(sep).includes('__fixture__'))
}

/** sha256 over labelled parts, in label order; length-prefixed, so no two sets of parts hash the same bytes. */
function digest(parts: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256')
  for (const label of [...parts.keys()].sort()) {
    const text = parts.get(label) ?? ''
    hash.update(`${label.length}:${label}${Buffer.byteLength(text)}:`).update(text)
  }
  return hash.digest('hex')
}

/**
 * The schema file, or every .prisma file under the schema folder but the a2a.prisma a2a writes
 * there: the manifest's hash covers that one, and plan() records a fingerprint only when the
 * a2a.prisma it writes leaves the plan as it is. A missing schema reads as absent.
 */
async function schemaFiles(appRoot: string, schemaPath: string): Promise<Map<string, string>> {
  const absolute = resolve(appRoot, schemaPath)
  const info = await stat(absolute).catch(() => undefined)
  const files = new Map<string, string>()
  if (!info) return files
  const paths = info.isDirectory()
    ? (await readdir(absolute, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile() && entry.name.endsWith('.prisma'))
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((path) => path !== join(absolute, 'a2a.prisma'))
    : [absolute]
  await Promise.all(paths.map(async (path) => files.set(toPosix(relative(appRoot, path)), await readFile(path, 'utf8'))))
  return files
}

// `from '…'`, `import '…'`, `import('…')`, `require('…')`; comments included: hashing too much is safe.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"`])([^'"`\n]+)\1/g

/**
 * The entry file and every module it reaches: relative imports transitively; a package by its
 * package.json, and a workspace package (linked, not installed) also by the source it exports.
 * `undefined` when an import cannot be resolved.
 */
async function moduleGraph(appRoot: string, entry: string): Promise<Map<string, string> | undefined> {
  const files = new Map<string, string>()
  const queue = [entry]
  const seen = new Set<string>()
  while (queue.length > 0) {
    const file = queue.pop() ?? ''
    if (seen.has(file)) continue
    seen.add(file)
    const text = await readFile(file, 'utf8').catch(() => undefined)
    if (text === undefined) return undefined
    files.set(toPosix(relative(appRoot, file)), text)
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[2] ?? ''
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const found = await relativeCandidates(resolve(dirname(file), specifier))
        if (found.length === 0) return undefined
        queue.push(...found)
      } else if (!isBuiltin(specifier)) {
        const found = await packageFiles(dirname(file), specifier)
        if (found === undefined) return undefined
        for (const [label, content] of found.labelled) files.set(`package:${label}`, content)
        queue.push(...found.sources)
      }
    }
  }
  return files
}

// Every file the specifier could mean (tsx maps `.js` to `.ts`, and allows no extension); all of
// them are hashed, so which one tsx picks does not matter.
async function relativeCandidates(path: string): Promise<string[]> {
  const stem = path.replace(/\.(c|m)?jsx?$/, '')
  const names = [path]
  if (stem !== path) names.push(`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`)
  else names.push(...['.ts', '.tsx', '.mts', '.js', '.mjs', '/index.ts', '/index.js'].map((ext) => `${path}${ext}`))
  const found: string[] = []
  for (const name of names) if ((await stat(name).catch(() => undefined))?.isFile()) found.push(name)
  return found
}

async function packageFiles(from: string, specifier: string): Promise<{ labelled: [string, string][]; sources: string[] } | undefined> {
  const segments = specifier.split('/')
  const name = specifier.startsWith('@') ? segments.slice(0, 2).join('/') : (segments[0] ?? '')
  const subpath = `.${specifier.slice(name.length)}`
  for (let dir = from; ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', name)
    const manifest = await readFile(join(packageDir, 'package.json'), 'utf8').catch(() => undefined)
    if (manifest !== undefined) {
      const labelled: [string, string][] = [[`${name}/package.json`, manifest]]
      const real = await realpath(packageDir)
      // An installed package changes only with its version; a linked one also by editing its source.
      if (real.split(sep).includes('node_modules')) return { labelled, sources: [] }
      const targets = exportTargets(JSON.parse(manifest) as { exports?: unknown; main?: unknown }, subpath)
      if (targets === undefined) return undefined
      const sources: string[] = []
      for (const target of targets) sources.push(...(await relativeCandidates(resolve(real, target))))
      return sources.length > 0 ? { labelled, sources } : undefined
    }
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * The condition under which this repository's workspace packages export their TypeScript source,
 * and which apps linking them run with: such an entry's build output is not what the app loads.
 */
const SOURCE_CONDITION = '@a2a-agent/source'

/** Every file path a package's `exports` (or `main`) could map `subpath` to; wildcards are not followed. */
function exportTargets(manifest: { exports?: unknown; main?: unknown }, subpath: string): string[] | undefined {
  const { exports } = manifest
  if (exports === undefined) return subpath === '.' ? [typeof manifest.main === 'string' ? manifest.main : 'index.js'] : [subpath]
  const isMap = typeof exports === 'object' && exports !== null && Object.keys(exports).some((key) => key.startsWith('.'))
  const conditions = isMap ? (exports as Record<string, unknown>)[subpath] : subpath === '.' ? exports : undefined
  const source = typeof conditions === 'object' && conditions !== null ? (conditions as Record<string, unknown>)[SOURCE_CONDITION] : undefined
  const entry = source ?? conditions
  const targets: string[] = []
  const collect = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value)
    else if (Array.isArray(value)) value.forEach(collect)
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(collect)
  }
  collect(entry)
  return targets.length > 0 ? targets : undefined
}

const toPosix = (path: string) => path.split(sep).join('/')
