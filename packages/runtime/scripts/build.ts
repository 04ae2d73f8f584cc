/**
 * `npm run build` (and `prepack`): the runtime as a plain Node package in dist/. Each export of
 * package.json names its source under the `@a2a-agent/source` condition; those sources are tsc's
 * roots (tsconfig.build.json lists the same files). tsc writes the declarations of every module
 * they reach, and esbuild transpiles exactly those modules, one JavaScript file beside each
 * declaration, imports and npm packages left as they are. So only what the exports reach ships
 * (tests and fixtures never are), and every import in dist/, JavaScript or declaration, names a
 * file that is there: `a2a generate entities` fingerprints a linked package by walking them.
 * @module
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import * as esbuild from 'esbuild'

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))
const DIST = join(PACKAGE_DIR, 'dist')
export const SOURCE_CONDITION = '@a2a-agent/source'

type Target = Record<string, string>

/** package.json's exports: subpath → { source, types, default }. */
export function exportTargets(dir = PACKAGE_DIR): Map<string, Target> {
  const { exports } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports: Record<string, Target> }
  return new Map(Object.entries(exports))
}

async function build(): Promise<void> {
  const targets = [...exportTargets().values()]
  for (const target of targets) {
    const [source, types, js] = [target[SOURCE_CONDITION], target.types, target.default]
    // dist/x.js and dist/x.d.ts must be what esbuild and tsc write for src/x.ts.
    const stem = source?.replace(/^\.\/src\//, '').replace(/\.ts$/, '')
    if (!stem || types !== `./dist/${stem}.d.ts` || js !== `./dist/${stem}.js`) {
      throw new Error(`package.json exports: ${JSON.stringify(target)} must be { "${SOURCE_CONDITION}": "./src/x.ts", "types": "./dist/x.d.ts", "default": "./dist/x.js" }`)
    }
  }
  rmSync(DIST, { recursive: true, force: true })
  // typescript's exports hide its bin; its package.json says where it is.
  const manifest = createRequire(import.meta.url).resolve('typescript/package.json')
  const tsc = join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { tsc: string } }).bin.tsc)
  const { stdout } = await promisify(execFile)(process.execPath, [tsc, '-p', join(PACKAGE_DIR, 'tsconfig.build.json'), '--listEmittedFiles'], { cwd: PACKAGE_DIR })
  const modules = [...stdout.matchAll(/^TSFILE: (.*)\.d\.ts$/gm)].map((match) => `src/${relative(DIST, match[1]!)}.ts`)
  await esbuild.build({
    absWorkingDir: PACKAGE_DIR,
    entryPoints: modules,
    outbase: 'src',
    outdir: 'dist',
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    logLevel: 'warning',
  })
  const missing = targets.flatMap((target) => [target.types!, target.default!]).filter((path) => !existsSync(join(PACKAGE_DIR, path)))
  // An export added to package.json but not to tsconfig.build.json's files.
  if (missing.length > 0) throw new Error(`the build did not write ${missing.join(', ')}; list every export's source in tsconfig.build.json`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  build().catch((error: unknown) => {
    // tsc reports its errors on stdout.
    const { stdout = '', message } = error as { stdout?: string; message?: string }
    console.error(stdout || message || error)
    process.exitCode = 1
  })
}
