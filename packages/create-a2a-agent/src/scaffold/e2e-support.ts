/**
 * Shared by the end-to-end scaffold tests (e2e.test.ts, e2e-change.test.ts): apps are scaffolded
 * inside this repository, so Node resolves the local runtime and CLI from the root node_modules.
 * @module
 */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, expect } from 'vitest'
import { freePort } from '../../../../test/free-port.js'
import { captureIo } from '../cli/test-io.js'
import { runCreate } from './index.js'
import { type Run, run } from './steps.js'
import type { Database } from './templates.js'

export const repo = fileURLToPath(new URL('../../../../', import.meta.url))

/** Every prisma call needs DATABASE_URL: without it Prisma 6 tries to download engines. */
export const env = { DATABASE_URL: 'file:./dev.db' }

export const bin = (path: string) => join(repo, 'node_modules', path)

/** A fresh folder under test/ (git-ignored) for this file's apps, removed after its tests. */
export function scaffoldRoot(): string {
  const root = mkdtempSync(join(repo, 'test', `.tmp-scaffold-${process.pid}-`))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  return root
}

/**
 * Scaffolds `root/name` with `flags` through the scaffolder's own steps (creating a PostgreSQL
 * database, generate, the first migration `prisma migrate dev --name init`, the seed), all but the
 * install: inside this repository the root node_modules serve the app.
 */
export async function scaffoldApp(root: string, name: string, flags: string[], database: Database, stepEnv: Record<string, string>) {
  const app = join(root, name)
  const { io, stdout, stderr } = captureIo()
  const noInstall: Run = async (command, args, options) => (command === 'npm' ? { code: 0, stdout: '', stderr: '' } : run(command, args, options))
  const previous = process.env.DATABASE_URL
  process.env.DATABASE_URL = stepEnv.DATABASE_URL
  try {
    expect(await runCreate([app, ...flags, '--yes', '--no-git'], io, { run: noInstall }), stdout() + stderr()).toBe(0)
  } finally {
    if (previous === undefined) delete process.env.DATABASE_URL
    else process.env.DATABASE_URL = previous
  }
  expect(stderr()).toBe('')
  expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).dependencies['@a2a-agent/runtime']).toBe('file:../../../packages/runtime')
  const migrations = readdirSync(join(app, 'prisma/migrations'))
  // Prisma's own naming, so the migrations `prisma migrate dev` adds later sort after it.
  expect(migrations).toEqual([expect.stringMatching(/^\d{14}_init$/), 'migration_lock.toml'])
  const sql = readFileSync(join(app, 'prisma/migrations', migrations[0]!, 'migration.sql'), 'utf8')
  expect(sql).toMatch(/CREATE TABLE ["`]A2ATask["`]/)
  expect(readFileSync(join(app, 'prisma/migrations/migration_lock.toml'), 'utf8')).toContain(`provider = "${database}"`)
  return { app, sql, output: stdout() }
}

/** The app's own type-check and tests (`vitestArgs` narrows them), side by side; both must pass. */
export async function checkApp(app: string, stepEnv: Record<string, string>, vitestArgs: string[] = []) {
  const [typecheck, tests] = await Promise.all([
    run(process.execPath, [bin('typescript/bin/tsc'), '-p', app], { cwd: app }),
    run(process.execPath, [bin('vitest/vitest.mjs'), 'run', '--root', app, ...vitestArgs], {
      cwd: app,
      env: { ...stepEnv, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    }),
  ])
  expect(typecheck.stdout + typecheck.stderr).toBe('')
  expect(tests.code, tests.stdout + tests.stderr).toBe(0)
  return { tests: tests.stdout }
}

/**
 * Adds an optional `colour` to the example's Note and runs `npm run db:change -- --name colour`
 * as a person would; resolves to the migration folders and the new migration's SQL.
 */
export async function addColourWithDbChange(app: string): Promise<{ migrations: string[]; sql: string }> {
  const file = (path: string) => join(app, path)
  const schema = readFileSync(file('prisma/schema.prisma'), 'utf8')
  const done = '  done      Boolean  @default(false)\n'
  expect(schema).toContain(done)
  writeFileSync(file('prisma/schema.prisma'), schema.replace(done, `${done}  /// Colour label\n  colour    String?\n`))
  const change = await promisify(execFile)('npm', ['run', 'db:change', '--', '--name', 'colour'], { cwd: app, env: userEnv() }).catch((error) => error)
  expect(change.code ?? 0, `${change.stdout}\n${change.stderr}`).toBe(0)
  const migrations = readdirSync(file('prisma/migrations')).filter((name) => name !== 'migration_lock.toml')
  expect(migrations).toEqual([expect.stringMatching(/^\d{14}_init$/), expect.stringMatching(/^\d{14}_colour$/)])
  return { migrations, sql: readFileSync(file(`prisma/migrations/${migrations[1]}/migration.sql`), 'utf8').trim() }
}

/** The environment of a person's shell: no source condition from this repository's vitest config. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0', ...extra }
  env.NODE_OPTIONS = (env.NODE_OPTIONS ?? '').replaceAll('--conditions=@a2a-agent/source', '').trim()
  delete env.DATABASE_URL
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name]
  return { ...env, ...extra }
}

export interface RunningApp {
  url: string
  /** Everything the process printed so far. */
  output(): string
  stop(): Promise<void>
}

/**
 * `npm run <script>` in `app` (its own process group: npm, tsx and the server all stop), on a free
 * port, once its agent card answers; rejects with the output when the process ends first.
 */
export async function startApp(app: string, script: string, env: Record<string, string> = {}): Promise<RunningApp> {
  const port = await freePort()
  const child = spawn('npm', ['run', '--silent', script], { cwd: app, env: userEnv({ PORT: String(port), ...env }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = once(child, 'exit')
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    process.kill(-child.pid!, 'SIGTERM')
    await exited
  }
  const url = `http://127.0.0.1:${port}`
  const ended = exited.then(([code]) => {
    throw new Error(`npm run ${script} exited (${code}):\n${output}`)
  })
  ended.catch(() => {})
  const card = () =>
    fetch(`${url}/.well-known/agent-card.json`).then(
      (response) => response.ok,
      () => false,
    )
  try {
    await Promise.race([expect.poll(card, { timeout: 60_000, interval: 250 }).toBe(true), ended])
  } catch (error) {
    await stop()
    throw error
  }
  return { url, output: () => output, stop }
}

/** `SendMessage` with one part, as `token`; resolves to the HTTP status and the JSON-RPC body. */
export async function sendMessage(url: string, token: string, part: Record<string, unknown>, metadata?: Record<string, unknown>) {
  const response = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [part], ...(metadata && { metadata }) } },
    }),
  })
  return { status: response.status, body: (await response.json().catch(() => undefined)) as any }
}

/** A2A_DEV_KEYS from the app's .env, as owner → token. */
export function devTokens(app: string): Record<string, string> {
  const line = readFileSync(join(app, '.env'), 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('A2A_DEV_KEYS='))!
  return Object.fromEntries(
    line
      .slice('A2A_DEV_KEYS='.length)
      .split(',')
      .map((pair) => pair.split(':') as [string, string]),
  )
}
