/**
 * The long steps after the files are written: install, generate, the first migration, seed, git. Each
 * runs a command through an injected `Run`, so tests can record or replace them.
 * @module
 */
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { delimiter, dirname, join, resolve } from 'node:path'
import { runGenerateEntities } from '../cli/generate-entities.js'
import type { Io } from '../cli/io.js'
import { installArgs, type PackageManager } from './package-manager.js'
import { DATABASES, type Database } from './templates.js'

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs `command args` in `cwd` with extra `env`; resolves when it exits (never rejects on a non-zero exit). */
export type Run = (command: string, args: readonly string[], options: { cwd: string; env?: Record<string, string> }) => Promise<RunResult>

export const run: Run = (command, args, { cwd, env }) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    // A missing command (ENOENT) is something the user can fix, not a bug.
    child.once('error', (error) => reject(new StepError(`${command}: ${error.message}`)))
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }))
  })

/**
 * The environment of every command run in `app`: its node_modules/.bin first, then the folder of the
 * node running the scaffolder, then the caller's PATH. Prisma runs the seed command (`tsx …`) with the
 * PATH it was given, and npx, `node bin/…`, a global install or `pnpm dlx` each start the scaffolder
 * with a different one, none of which need hold the app's bins.
 */
export function appEnv(app: string, env: Record<string, string> = {}): Record<string, string> {
  // Windows spells it Path; keep whichever key the process has.
  const key = Object.keys(process.env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH'
  const path = [join(app, 'node_modules', '.bin'), dirname(process.execPath), process.env[key]].filter(Boolean).join(delimiter)
  return { ...env, [key]: path }
}

export class StepError extends Error {
  override name = 'StepError'
}

/** The prisma CLI as the app resolves it (its node_modules, or a parent's), run with this node. */
async function prisma(app: string, args: readonly string[], env: Record<string, string>, runner: Run): Promise<RunResult> {
  let cli: string
  try {
    cli = createRequire(resolve(app, 'package.json')).resolve('prisma/build/index.js')
  } catch {
    throw new StepError('prisma is not installed in the app; run `npm install` first.')
  }
  const result = await runner(process.execPath, [cli, ...args], { cwd: app, env: appEnv(app, env) })
  if (result.code !== 0) throw new StepError(`prisma ${args.slice(0, 2).join(' ')} failed:\n${result.stderr || result.stdout}`)
  return result
}

export async function install(app: string, pm: PackageManager, runner: Run = run): Promise<void> {
  const [command, args] = installArgs(pm)
  const result = await runner(command, args, { cwd: app, env: appEnv(app) })
  if (result.code !== 0) throw new StepError(`${pm} install failed:\n${result.stderr || result.stdout}`)
}

/** `a2a generate entities`, in-process: the tools, skills and tests for src/entities.ts, and prisma/a2a.prisma. */
export async function generateEntities(app: string, io: Io): Promise<void> {
  const code = await runGenerateEntities({ app }, io)
  if (code !== 0) throw new StepError('a2a generate entities failed (see above).')
}

/**
 * The first migration, in Prisma's own naming (prisma/migrations/<timestamp>_init), applied to the
 * database, and the Prisma client generated: `prisma migrate dev --name init`, or (the database's
 * `migrator` is a2a: MySQL/MariaDB, which Prisma's wasm schema engine has no connector for)
 * `a2a migrate dev --name init` in-process, creating the database when missing, then `prisma generate`.
 */
export async function firstMigration(app: string, database: Database, env: Record<string, string>, io: Io, runner: Run = run): Promise<void> {
  if (DATABASES[database].migrator === 'prisma') {
    await prisma(app, ['migrate', 'dev', '--name', 'init'], env, runner)
    return
  }
  const { runMigrate } = await import('../migrate/migrate.js')
  if ((await runMigrate('dev', { app, name: 'init', url: env.DATABASE_URL, cwd: app }, io)) !== 0) throw new StepError('a2a migrate dev --name init failed (see above).')
  await prisma(app, ['generate'], env, runner)
}

/** `prisma db seed`: prisma/seed.ts adds the users the development keys act as. */
export async function seed(app: string, env: Record<string, string>, runner: Run = run): Promise<void> {
  await prisma(app, ['db', 'seed'], env, runner)
}

/**
 * `git init` and a first commit. 'inside' (nothing done) when the app sits in another repository's
 * work tree, such as a monorepo; false (nothing thrown) when git is missing or refuses, e.g. no identity set.
 */
export async function gitInit(app: string, runner: Run = run): Promise<boolean | 'inside'> {
  const git = (args: string[]) => runner('git', args, { cwd: app }).catch(() => ({ code: 1, stdout: '', stderr: '' }))
  const probe = await git(['rev-parse', '--is-inside-work-tree'])
  if (probe.code === 0 && probe.stdout.trim() === 'true') return 'inside'
  if ((await git(['init', '--quiet'])).code !== 0) return false
  if ((await git(['add', '--all'])).code !== 0) return false
  return (await git(['commit', '--quiet', '--message', 'Initial commit from create-a2a-agent'])).code === 0
}
