/**
 * Opt-in (A2A_TEST_NETWORK=1: it installs from the npm registry): the scaffolder as `pnpm create`,
 * `yarn create` and `bun create` start it. The packages are packed from this checkout (what `npm run
 * create` does), each package manager is installed with npm into a temporary prefix at a pinned
 * version, and the packed scaffolder runs with that manager's user agent, outside this repository,
 * for a SQLite app and a PostgreSQL one: it installs with that manager, generates, migrates and
 * seeds; then the app's own tests run through the same manager (`pnpm test`, `yarn test`, `bun run
 * test`), and a `prisma migrate dev` with nothing to change says so (its time is printed). One test
 * per manager and database, so the report says which pass. A SQLite app's install builds
 * better-sqlite3: its install script downloads a prebuilt binary from GitHub, else compiles with
 * the node-gyp the manager provides, so it needs one of the two to work where the test runs.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { packLocalPackages, scaffolderEnv } from '../packages/create-a2a-agent/src/build/from-clone.js'
import { unpackWithDependencies } from '../packages/create-a2a-agent/src/build/unpacked.js'
import { commandsFor, type PackageManager } from '../packages/create-a2a-agent/src/scaffold/package-manager.js'

// The newest releases that run on Node 20 when this test was written.
const MANAGERS: { name: Exclude<PackageManager, 'npm'>; spec: string; version: string }[] = [
  { name: 'pnpm', spec: 'pnpm@12.26.0', version: '12.26.0' },
  { name: 'yarn', spec: '@yarnpkg/cli-dist@4.18.1', version: '4.18.1' },
  { name: 'bun', spec: 'bun@1.4.5', version: '1.4.5' },
]

const DATABASES = ['sqlite', 'postgresql'] as const
const CASES = MANAGERS.flatMap((manager) => DATABASES.map((database) => ({ ...manager, database })))

const network = process.env.A2A_TEST_NETWORK === '1'
const server = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'
const temp = mkdtempSync(join(tmpdir(), 'a2a-managers-'))
// The PostgreSQL apps' databases, which their scaffolder created.
const databases: string[] = []
afterAll(async () => {
  if (databases.length > 0) {
    const admin = new pg.Client({ connectionString: server })
    await admin.connect()
    for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  }
  // Each app's folder went at the end of its test; the managers and the packs are left.
  await rm(temp, { recursive: true, force: true })
}, 600_000)

/**
 * A person's shell with the managers on PATH: no source condition, none of this repository's or
 * vitest's variables, and no CI (Yarn refuses to write a new lockfile under CI).
 */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = scaffolderEnv()
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name.startsWith('npm_') || name === 'CI') delete env[name]
  env.NODE_OPTIONS = (env.NODE_OPTIONS ?? '').replaceAll('--conditions=@a2a-agent/source', '').trim()
  env.PATH = [join(temp, 'managers/node_modules/.bin'), env.PATH].join(delimiter)
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra }
}

/** `command args` in `cwd`, printed first; resolves to its exit code and output, never throws. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = shellEnv()): Promise<{ code: number; output: string }> {
  console.log(`${cwd}: ${[command, ...args].join(' ')}`)
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` })
    })
  })
}

let scaffolder: string
let packs: string

describe.skipIf(!network)('the scaffolder under each package manager (A2A_TEST_NETWORK=1)', () => {
  beforeAll(async () => {
    packs = join(temp, 'packs')
    const packed = await packLocalPackages(packs)
    scaffolder = join(await unpackWithDependencies(packed.tarballs.cli, join(temp, 'tools')), 'bin/create-a2a-agent.js')
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefix', join(temp, 'managers'), ...MANAGERS.map((manager) => manager.spec)], temp)
    expect(installed.code, installed.output).toBe(0)
  }, 900_000)

  it.each(CASES)('$name, $database: scaffolds, installs, migrates and seeds, then the app passes its tests', { timeout: 1_200_000 }, async ({ name, version, database }) => {
    const bin = join(temp, 'managers/node_modules/.bin', name)
    expect(existsSync(bin), `${name} installed into the temporary prefix`).toBe(true)
    const reported = await run(bin, ['--version'], temp)
    expect(reported.output.trim()).toBe(version)
    const app = join(temp, `${name}-${database}-agent`)
    const url = new URL(server)
    url.pathname = `/managers_${name}_${process.pid}`
    if (database === 'postgresql') databases.push(url.pathname.slice(1))
    const env = shellEnv({
      npm_config_user_agent: `${name}/${version} npm/? node/${process.version} ${process.platform} ${process.arch}`,
      ...(database === 'postgresql' && { DATABASE_URL: url.href }),
    })
    onTestFinished(() => rm(app, { recursive: true, force: true }))
    const created = await run(process.execPath, [scaffolder, app, '--database', database, '--packages', packs, '--yes', '--no-git'], temp, env)
    expect(created.code, created.output).toBe(0)
    // Every printed command uses the manager, and so do the app's README and scripts.
    const commands = commandsFor(name)
    expect(created.output).toContain(`  ${commands.test}\n`)
    expect(readFileSync(join(app, 'README.md'), 'utf8')).toContain(commands.run('db:change', '--name add_due_date'))
    const viaManager = (line: string) => {
      const [command, ...args] = line.split(' ')
      return [command === name ? bin : join(temp, 'managers/node_modules/.bin', command!), args] as const
    }
    const tests = await run(...viaManager(commands.test), app, env)
    expect(tests.code, tests.output).toBe(0)
    expect(tests.output).toMatch(/Test Files +2 passed/)
    // Nothing to change: said, and the process ends (printed, not asserted: timing is for benches).
    const started = performance.now()
    const noop = await run(...viaManager(commands.exec('prisma migrate dev')), app, env)
    console.log(`${name}, ${database}: no-op prisma migrate dev took ${((performance.now() - started) / 1000).toFixed(1)} s`)
    expect(noop.code, noop.output).toBe(0)
    expect(noop.output).toContain('Already in sync')
  })
})
