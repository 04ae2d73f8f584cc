/**
 * The programmatic entry's types (`npm run build`, so `prepack`): tsc writes the declarations of
 * src/index.ts and of the workspace sources it reaches (tsconfig.build.json maps @a2a-agent/* onto
 * those sources), they are copied into dist/types/, and dist/index.d.ts re-exports them. The bundle
 * carries those workspace packages and a published install has none of them, so every @a2a-agent/*
 * import in the declarations is rewritten to the copy in dist/types/.
 * @module
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { DIST_DIR, PACKAGE_DIR } from '../../bin/launch.js'
import { toPosix, writeAtomic } from './files.js'

const TYPES_DIR = join(DIST_DIR, 'types')
/** Where each workspace package's declarations land, as tsconfig.build.json's paths map it. */
const WORKSPACE = { '@a2a-agent/generators': 'generators/src', '@a2a-agent/runtime': 'packages/runtime/src' }

export async function buildDeclarations(): Promise<void> {
  const manifest = createRequire(import.meta.url).resolve('typescript/package.json')
  const tsc = join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { tsc: string } }).bin.tsc)
  // Emitted elsewhere, then copied file by file with atomic writes: a concurrent `npm pack` (its
  // prepack builds too) never sees dist/types/ half written.
  const emitted = mkdtempSync(join(tmpdir(), 'a2a-declarations-'))
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', join(PACKAGE_DIR, 'tsconfig.build.json'), '--outDir', emitted], { cwd: PACKAGE_DIR }).catch(
      (error: { stdout?: string }) => {
        // tsc reports its errors on stdout.
        throw new Error(`tsc (declarations of src/index.ts) failed:\n${error.stdout ?? error}`)
      },
    )
    const written = new Set<string>()
    for (const path of files(emitted)) {
      const target = join(TYPES_DIR, relative(emitted, path))
      const text = readFileSync(path, 'utf8')
      writeAtomic(
        target,
        text.replace(/^((?:import|export)\b[^\n]*? from ')(@a2a-agent\/[^']+)'/gm, (_, head: string, specifier: string) => `${head}${localPath(target, specifier)}'`),
      )
      written.add(target)
    }
    for (const path of files(TYPES_DIR)) if (!written.has(path)) rmSync(path, { force: true })
  } finally {
    rmSync(emitted, { recursive: true, force: true })
  }
  const index = toPosix(relative(DIST_DIR, join(TYPES_DIR, 'packages/create-a2a-agent/src/index.js')))
  writeAtomic(join(DIST_DIR, 'index.d.ts'), `export * from './${index}'\n`)
}

function files(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true }).flatMap((entry) => (entry.isFile() ? [join(entry.parentPath, entry.name)] : []))
}

/** `@a2a-agent/runtime/prisma` → `../../packages/runtime/src/prisma.js`, relative to the declaration at `from`. */
function localPath(from: string, specifier: string): string {
  const [name, folder] = Object.entries(WORKSPACE).find(([name]) => specifier === name || specifier.startsWith(`${name}/`)) ?? []
  if (!name || !folder) throw new Error(`${from}: imports ${specifier}, which tsconfig.build.json does not map`)
  const subpath = specifier.slice(name.length + 1) || 'index'
  const target = toPosix(relative(dirname(from), join(TYPES_DIR, folder, `${subpath}.js`)))
  return target.startsWith('.') ? target : `./${target}`
}
