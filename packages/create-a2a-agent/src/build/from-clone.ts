/**
 * `npm run create -- <folder> [flags]` in a clone of this repository: an app scaffolded from the
 * clone's own packages, before (or without) their release. @a2a-agent/runtime and create-a2a-agent
 * are packed as npm would publish them, the packed scaffolder runs as `npx create-a2a-agent` would
 * (its dependencies linked from the clone's node_modules), and `--packages` puts both tarballs in the
 * app's vendor/, so its install needs the registry only for third-party packages. Any flag of
 * create-a2a-agent passes through; given `--packages <folder>`, those tarballs are used and nothing is packed.
 * @module
 */
import { execFile, spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type PackedPackages, packedPackages } from '../scaffold/vendor.js'
import { unpackWithDependencies } from './unpacked.js'

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const RUNTIME = join(REPO, 'packages/runtime')
const CLI = join(REPO, 'packages/create-a2a-agent')

/** Each package's tarball and the files npm put in it. */
export interface Packed {
  tarballs: PackedPackages
  files: { runtime: string[]; cli: string[] }
}

/**
 * `npm pack`s the runtime and the CLI into `destination` (each prepack builds). The runtime is packed
 * from a copy beside the root tsconfig.json its build extends, so the clone's packages/runtime/dist,
 * which tests' fingerprints read when it exists, stays as it is.
 */
export async function packLocalPackages(destination: string): Promise<Packed> {
  mkdirSync(destination, { recursive: true })
  const stage = mkdtempSync(join(tmpdir(), 'a2a-stage-'))
  try {
    const [runtime, cli] = await Promise.all([pack(stageRuntime(stage), destination), pack(CLI, destination)])
    return { tarballs: { runtime: runtime.tarball, cli: cli.tarball }, files: { runtime: runtime.files, cli: cli.files } }
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

function stageRuntime(stage: string): string {
  const dir = join(stage, 'packages/runtime')
  mkdirSync(dir, { recursive: true })
  for (const name of readdirSync(RUNTIME)) {
    if (name === 'node_modules') symlinkSync(join(RUNTIME, name), join(dir, name))
    else if (name !== 'dist') cpSync(join(RUNTIME, name), join(dir, name), { recursive: true })
  }
  cpSync(join(REPO, 'tsconfig.json'), join(stage, 'tsconfig.json'))
  symlinkSync(join(REPO, 'node_modules'), join(stage, 'node_modules'))
  return dir
}

function pack(dir: string, destination: string): Promise<{ tarball: string; files: string[] }> {
  return new Promise((done, fail) => {
    execFile('npm', ['pack', '--json', '--pack-destination', destination], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return fail(new Error(`npm pack in ${dir} failed:\n${stderr || error.message}`))
      const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[]
      done({ tarball: join(destination, result!.filename), files: result!.files.map((file) => file.path).sort() })
    })
  })
}

/**
 * The environment the packed scaffolder runs with: the caller's, without what `npm run` added in the
 * clone (its node_modules/.bin on PATH, its package's variables), so the app never leans on the clone.
 */
export function scaffolderEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(env).filter(([name]) => !/^npm_(package_|lifecycle_|config_local_prefix$)/.test(name) && name !== 'INIT_CWD'))
  const key = Object.keys(clean).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH'
  const path = (clean[key] ?? '').split(delimiter).filter((entry) => entry && !resolve(entry).startsWith(REPO) && !entry.includes(`${sep}node-gyp-bin`))
  return { ...clean, [key]: path.join(delimiter) }
}

/** Packs (unless `--packages` names tarballs), then runs the packed scaffolder in `cwd`; resolves to its exit code. */
export async function createFromClone(args: readonly string[], cwd: string): Promise<number> {
  const temp = mkdtempSync(join(tmpdir(), 'a2a-create-'))
  try {
    const given = packagesFlag(args)
    const folder = given === undefined ? join(temp, 'packs') : resolve(cwd, given)
    if (given === undefined) {
      process.stderr.write('Packing @a2a-agent/runtime and create-a2a-agent from this clone (npm pack, a minute or so)...\n')
      await packLocalPackages(folder)
    }
    const packed = await packedPackages(folder)
    if (typeof packed === 'string') {
      process.stderr.write(`npm run create: --packages ${given}: ${packed}\n`)
      return 1
    }
    const scaffolder = await unpackWithDependencies(packed.cli, join(temp, 'tools'))
    const forwarded = given === undefined ? [...args, '--packages', folder] : [...args]
    const child = spawn(process.execPath, [join(scaffolder, 'bin/create-a2a-agent.js'), ...forwarded], { cwd, env: scaffolderEnv(), stdio: 'inherit' })
    return await new Promise<number>((done) => {
      child.once('error', () => done(1))
      child.once('close', (code) => done(code ?? 1))
    })
  } finally {
    rmSync(temp, { recursive: true, force: true })
  }
}

/** The value of `--packages <folder>` / `--packages=<folder>`, if given. */
function packagesFlag(args: readonly string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg === '--packages') return args[index + 1]
    if (arg.startsWith('--packages=')) return arg.slice('--packages='.length)
  }
  return undefined
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `npm run` starts scripts in the repository's root; INIT_CWD is where the person typed it.
  createFromClone(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd()).then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`npm run create: ${error.message}\n`)
      process.exit(1)
    },
  )
}
