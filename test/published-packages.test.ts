/**
 * The packages as a user gets them, and an app made from a clone as the root README says: `npm pack`
 * @a2a-agent/runtime and create-a2a-agent (each prepack builds; packLocalPackages, what `npm run
 * create` runs), then scaffold apps outside this repository, in os.tmpdir(), with both tarballs in
 * the app's vendor/ (`--packages`). A PostgreSQL app made by `npm run create` itself, whose database
 * does not exist yet, under a PATH with no `tsx` on it: the scaffolder installs, generates, migrates
 * and seeds, then the app's own type-check and tests pass, and Prisma's `migrate dev --create-only`
 * writes a migration to add hand SQL to. A MySQL app made by the packed scaffolder on MariaDB, the
 * same way through `a2a migrate`. A SQLite app made without the install, whose "Next:" list,
 * followed, ends in passing tests. Nothing in those apps sets the "@a2a-agent/source" condition, so
 * every import of the runtime must resolve to its built JavaScript.
 * These are end-to-end: each app installs its dependencies once (from npm's cache where it can).
 */
import { execFile, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, delimiter, dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { type Packed, packLocalPackages } from '../packages/create-a2a-agent/src/build/from-clone.js'
import { unpackWithDependencies } from '../packages/create-a2a-agent/src/build/unpacked.js'
import { exportTargets, SOURCE_CONDITION } from '../packages/runtime/scripts/build.js'
import { grpcBindingClient } from '../packages/runtime/src/testing/grpc-client.js'
import { freePort } from './free-port.js'
import { mysqlConnection, mysqlServer } from './mysql-server.js'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const RUNTIME = join(REPO, 'packages/runtime')
const server = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'
const temp = mkdtempSync(join(tmpdir(), 'a2a-published-'))
const app = join(temp, 'published-agent')
afterAll(() => rmSync(temp, { recursive: true, force: true }), 120_000)

/**
 * This repository's runs set the source condition (NODE_OPTIONS from vitest.config.ts) and npm's
 * script variables; a user's shell has neither.
 */
const userEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_') && !name.startsWith('VITEST'))),
  NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replaceAll(`--conditions=${SOURCE_CONDITION}`, '').trim(),
  CI: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
}

/** Runs `command` and resolves to its exit code and output; never throws. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...userEnv, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}`, stdout })
    })
  })
}

const filesUnder = (root: string) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))

/** The databases that connections named `appName` (PGAPPNAME) use while `work` runs. */
async function databasesUsedDuring<T>(appName: string, work: () => Promise<T>): Promise<{ result: T; used: Set<string> }> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  const used = new Set<string>()
  let watching = true
  const watcher = (async () => {
    while (watching) {
      const { rows } = await client.query<{ datname: string }>('SELECT DISTINCT datname FROM pg_stat_activity WHERE application_name = $1', [appName])
      for (const { datname } of rows) used.add(datname)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  try {
    return { result: await work(), used }
  } finally {
    watching = false
    await watcher
    await client.end()
  }
}

async function existingDatabases(names: Iterable<string>): Promise<string[]> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = ANY($1)', [[...names]])
    return rows.map((row) => row.datname)
  } finally {
    await client.end()
  }
}

describe('the published packages', () => {
  let packed: Packed

  it('pack: the runtime ships dist/ with JavaScript and declarations for every export, and no sources, tests or fixtures', async () => {
    packed = await packLocalPackages(temp)
    const { runtime, cli } = packed.files
    const targets = [...exportTargets(RUNTIME).values()]
    expect(targets.length).toBeGreaterThan(0)
    for (const target of targets) {
      expect(target[SOURCE_CONDITION]).toMatch(/^\.\/src\/.*\.ts$/)
      expect(runtime).toContain(target.default!.slice(2))
      expect(runtime).toContain(target.types!.slice(2))
    }
    expect(runtime.filter((path) => path !== 'package.json' && path !== 'README.md' && !path.startsWith('dist/'))).toEqual([])
    expect(runtime.filter((path) => /\.test\.|__fixture__/.test(path))).toEqual([])
    expect(cli).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'bin/create-a2a-agent.js']))
  }, 300_000)

  it('PostgreSQL, from a clone (`npm run create`), on a PATH without tsx: creates the database, installs from vendor/, migrates, seeds, and the app passes its own tests', async () => {
    expect(packed, 'the pack test must run first').toBeDefined()
    const database = new URL(server)
    database.pathname = `/published_pg_${process.pid}`
    const env = { DATABASE_URL: database.href, PGAPPNAME: `published-packages-${process.pid}` }
    // Node's own folder and the system's: npm is there, tsx is not (the seed's `tsx` must come from the app).
    const bare = [...new Set([dirname(process.execPath), '/usr/bin', '/bin'])]
    for (const dir of bare) expect(existsSync(join(dir, 'tsx')), `${dir}/tsx`).toBe(false)
    try {
      const created = await run('npm', ['run', '--silent', 'create', '--', app, '--database', 'postgresql', '--yes', '--no-git', '--packages', temp], REPO, {
        ...env,
        PATH: bare.join(delimiter),
      })
      expect(created.code, created.output).toBe(0)
      expect(created.output).toContain(`Created the database ${database.href}.`)
      expect(created.output).toMatch(/- Adding the development users \(npm run db:seed\)… done/)
      expect(nextCommands(created.stdout)).toEqual(['npm run dev', 'npm test'])
      expect(await usersIn(database.href)).toEqual(['alice', 'bob'])
      expect(readdirSync(join(app, 'vendor'))).toEqual([basename(packed.tarballs.runtime), basename(packed.tarballs.cli)])
      const manifest = readManifest(app)
      expect(manifest.dependencies!['@a2a-agent/runtime']).toBe(`file:vendor/${basename(packed.tarballs.runtime)}`)
      expect(manifest.devDependencies!['create-a2a-agent']).toBe(`file:vendor/${basename(packed.tarballs.cli)}`)
      expect(Object.keys(manifest.dependencies!)).not.toContain('better-sqlite3')
      expect(existsSync(join(app, 'node_modules/better-sqlite3')), 'nothing in the PostgreSQL app needs better-sqlite3').toBe(false)
      await checkResolution(app)

      const key = await run('npx', ['a2a', 'keys', 'create', '--user', 'alice'], app, env)
      expect(key.code, key.output).toBe(0)
      expect(key.stdout).toMatch(/^a2a_\S+\n$/)

      const { result, used } = await databasesUsedDuring(env.PGAPPNAME, () =>
        Promise.all([run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', app, '--listFiles'], app), run('npm', ['test'], app, env)]),
      )
      const [typecheck, tests] = result
      expect(typecheck.code, typecheck.output).toBe(0)
      // The runtime's types come from its declarations in dist/, never from its sources.
      const runtimeDir = join(app, 'node_modules/@a2a-agent/runtime')
      const checked = typecheck.stdout.split('\n').filter((path) => path.startsWith(`${runtimeDir}/`))
      expect(checked).toEqual(expect.arrayContaining([join(runtimeDir, 'dist/index.d.ts'), join(runtimeDir, 'dist/prisma.d.ts'), join(runtimeDir, 'dist/prisma-config.d.ts')]))
      expect(checked.filter((path) => !path.endsWith('.d.ts'))).toEqual([])
      expect(tests.code, tests.output).toBe(0)
      // --yes brings the example entity: its generated tests and test/hello.test.ts.
      expect(tests.output).toMatch(/Test Files +2 passed/)
      // Each test file made its own database and dropped it.
      const throwaway = [...used].filter((name) => name.startsWith('test_'))
      expect(throwaway.length).toBeGreaterThan(0)
      expect(await existingDatabases(throwaway)).toEqual([])

      // Hand SQL the way Prisma documents it: a draft migration, edited, then applied.
      const draft = await run('npx', ['prisma', 'migrate', 'dev', '--create-only', '--name', 'hand_sql'], app, env)
      expect(draft.code, draft.output).toBe(0)
      expect(draft.output, "Prisma's warning to remove the datasource url, which must stay").not.toContain('WARNING')
      const [hand] = readdirSync(join(app, 'prisma/migrations')).filter((name) => name.endsWith('_hand_sql'))
      expect(hand, draft.output).toBeDefined()
      writeFileSync(join(app, 'prisma/migrations', hand!, 'migration.sql'), 'CREATE EXTENSION IF NOT EXISTS citext;\n')
      const applied = await run('npm', ['run', 'db:change'], app, env)
      expect(applied.code, applied.output).toBe(0)
      expect(await extensionsIn(database.href)).toContain('citext')
    } finally {
      await dropDatabase(database.pathname.slice(1))
    }
  }, 900_000)

  it('MySQL/MariaDB, from the packed scaffolder: creates the database, installs from vendor/, migrates with a2a migrate, seeds, and the app passes its own tests', async () => {
    expect(packed, 'the pack test must run first').toBeDefined()
    const scaffolder = await unpackWithDependencies(packed.tarballs.cli, join(temp, 'tools-mysql'))
    const mysqlApp = join(temp, 'mysql-agent')
    const database = new URL(mysqlServer)
    database.pathname = `/published_my_${process.pid}`
    const env = { DATABASE_URL: database.href }
    try {
      const created = await run(
        process.execPath,
        [join(scaffolder, 'bin/create-a2a-agent.js'), mysqlApp, '--database', 'mysql', '--yes', '--no-git', '--packages', temp],
        temp,
        env,
      )
      expect(created.code, created.output).toBe(0)
      expect(created.output).toMatch(/- Creating and applying the first migration \(a2a migrate dev --name init\), and the Prisma client… done/)
      expect(created.output).toMatch(/- Adding the development users \(npm run db:seed\)… done/)
      expect(nextCommands(created.stdout)).toEqual(['npm run dev', 'npm test'])
      const manifest = readManifest(mysqlApp)
      expect(manifest.devDependencies!['create-a2a-agent']).toBe(`file:vendor/${basename(packed.tarballs.cli)}`)
      expect(existsSync(join(mysqlApp, 'node_modules/@prisma/adapter-mariadb'))).toBe(true)
      expect(existsSync(join(mysqlApp, 'node_modules/@prisma/adapter-pg')), 'nothing in the MySQL app needs the PostgreSQL adapter').toBe(false)
      await checkResolution(mysqlApp)

      const tests = await run('npm', ['test'], mysqlApp, env)
      expect(tests.code, tests.output).toBe(0)
      expect(tests.output).toMatch(/Test Files +2 passed/)

      // Hand SQL as on the other databases: a draft migration, edited, then applied by db:change.
      const draft = await run('npx', ['a2a', 'migrate', 'dev', '--create-only', '--name', 'hand_sql'], mysqlApp, env)
      expect(draft.code, draft.output).toBe(0)
      const [hand] = readdirSync(join(mysqlApp, 'prisma/migrations')).filter((name) => name.endsWith('_hand_sql'))
      expect(hand, draft.output).toBeDefined()
      writeFileSync(join(mysqlApp, 'prisma/migrations', hand!, 'migration.sql'), 'CREATE VIEW `OpenNote` AS SELECT id, title FROM `Note` WHERE done = 0;\n')
      const applied = await run('npm', ['run', 'db:change'], mysqlApp, env)
      expect(applied.code, applied.output).toBe(0)
      expect(applied.output).toMatch(/Applied \d{14}_hand_sql[\s\S]*Already in sync/)
      const app = await mysqlConnection(database, { database: database.pathname.slice(1) })
      await expect(app.query('SELECT * FROM OpenNote').finally(() => app.end())).resolves.toEqual([])
    } finally {
      const admin = await mysqlConnection(database)
      await admin.query(`DROP DATABASE IF EXISTS \`${database.pathname.slice(1)}\``).finally(() => admin.end())
    }
  }, 900_000)

  it('SQLite: made without the install, its Next list, followed, ends in passing tests; a no-op `migrate dev` ends', async () => {
    expect(packed, 'the pack test must run first').toBeDefined()
    // The packed scaffolder, unpacked as npm would install it; its dependencies come from this repository.
    const scaffolder = await unpackWithDependencies(packed.tarballs.cli, join(temp, 'tools'))
    const sqliteApp = join(temp, 'sqlite-agent')
    const created = await run(process.execPath, [join(scaffolder, 'bin/create-a2a-agent.js'), sqliteApp, '--yes', '--no-git', '--no-install', '--packages', temp], temp)
    expect(created.code, created.output).toBe(0)
    const next = nextCommands(created.stdout)
    expect(next).toEqual(['npm install', 'npm run generate', 'npx prisma migrate dev --name init', 'npm run db:seed', 'npm run dev', 'npm test'])
    expect(readManifest(sqliteApp).dependencies!['@a2a-agent/runtime']).toBe(`file:vendor/${basename(packed.tarballs.runtime)}`)
    for (const command of next.filter((command) => command !== 'npm run dev')) {
      if (command === 'npm install') {
        // better-sqlite3 would compile for minutes (no prebuilt binary offline): install without
        // scripts and take this repository's build of the same version.
        const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], sqliteApp)
        expect(installed.code, installed.output).toBe(0)
        expect(readManifest(join(sqliteApp, 'node_modules/better-sqlite3')).version).toBe(readManifest(join(REPO, 'node_modules/better-sqlite3')).version)
        cpSync(join(REPO, 'node_modules/better-sqlite3/build'), join(sqliteApp, 'node_modules/better-sqlite3/build'), { recursive: true })
        continue
      }
      const done = await run('sh', ['-c', command], sqliteApp)
      expect(done.code, `${command}\n${done.output}`).toBe(0)
      if (command === 'npm test') expect(done.output).toMatch(/Test Files +2 passed/)
    }
    expect(readdirSync(join(sqliteApp, 'prisma/migrations'))).toEqual([expect.stringMatching(/^\d{14}_init$/), 'migration_lock.toml'])
    await checkResolution(sqliteApp)
    await servesGrpcWhenAsked(sqliteApp)
    const refused = await run('npx', ['a2a', 'keys', 'create', '--user', 'mallory'], sqliteApp)
    expect(refused.code).toBe(1)
    expect(refused.output).toContain('--user mallory: no User.id is "mallory"')
    // Nothing to change: it says so and exits (the engine's timers used to hold it open).
    const noop = await run('npx', ['prisma', 'migrate', 'dev'], sqliteApp)
    expect(noop.code, noop.output).toBe(0)
    expect(noop.output).toContain('Already in sync')
  }, 600_000)
})

/**
 * `npm start` with A2A_GRPC_PORT set serves the A2A gRPC binding beside HTTP, with nothing added to
 * the app: a SendMessage over gRPC with a dev key is the task HTTP+JSON reads.
 */
async function servesGrpcWhenAsked(app: string): Promise<void> {
  const [port, grpcPort] = [await freePort(), await freePort()]
  const token = /^A2A_DEV_KEYS=[^:,\s]+:([^,\s]+)/m.exec(readFileSync(join(app, '.env'), 'utf8'))![1]!
  const child = spawn('npm', ['start'], { cwd: app, env: { ...userEnv, PORT: String(port), A2A_GRPC_PORT: String(grpcPort) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const client = grpcBindingClient(`127.0.0.1:${grpcPort}`, token)
  try {
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status, { timeout: 60_000, interval: 250 }).toBe(200)
    const reply = await client.call('SendMessage', { message: { messageId: 'grpc-1', role: 'ROLE_USER', parts: [{ text: 'Ada' }], metadata: { skill: 'hello' } } })
    expect(reply.status, output).toBe(0)
    const task = reply.result.task
    expect(task, JSON.stringify(task)).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ text: 'Hello, Ada!' }] }] })
    const card = (await (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: unknown[] }
    expect(card.supportedInterfaces.at(-1)).toEqual({ url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' })
    const overHttp = await fetch(`http://127.0.0.1:${port}/a2a/rest/tasks/${task.id}`, { headers: { authorization: `Bearer ${token}`, 'a2a-version': '1.0' } })
    expect(((await overHttp.json()) as { status: { state: string } }).status.state).toBe('TASK_STATE_COMPLETED')
  } finally {
    client.close()
    process.kill(-child.pid!, 'SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

async function usersIn(url: string): Promise<string[]> {
  return (await queryColumn(url, 'SELECT id AS value FROM "User" ORDER BY id')).sort()
}

async function extensionsIn(url: string): Promise<string[]> {
  return queryColumn(url, 'SELECT extname AS value FROM pg_extension')
}

async function queryColumn(url: string, sql: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ value: string }>(sql)).rows.map((row) => row.value)
  } finally {
    await client.end()
  }
}

/** The commands of the scaffolder's closing "Next:" list, without the `cd` and the comments. */
function nextCommands(stdout: string): string[] {
  const list = stdout
    .slice(stdout.lastIndexOf('Next:\n') + 'Next:\n'.length)
    .trimEnd()
    .split('\n')
  return list.map((line) => line.trim().replace(/ +#.*$/, '')).filter((line) => !line.startsWith('cd '))
}

function readManifest(dir: string): Record<string, Record<string, string>> & { version?: string } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
}

/** Every runtime export and the CLI resolve to built JavaScript in the app's node_modules. */
async function checkResolution(dir: string): Promise<void> {
  const runtimeDir = join(dir, 'node_modules/@a2a-agent/runtime')
  const subpaths = [...exportTargets(RUNTIME).keys()].map((subpath) => `@a2a-agent/runtime${subpath.slice(1)}`)
  const resolved = await run(
    process.execPath,
    ['--input-type=module', '-e', `for (const s of ${JSON.stringify([...subpaths, 'create-a2a-agent'])}) console.log(import.meta.resolve(s))`],
    dir,
  )
  expect(resolved.code, resolved.output).toBe(0)
  expect(resolved.stdout.trim().split('\n')).toEqual([
    ...[...exportTargets(RUNTIME).values()].map((target) => `file://${join(runtimeDir, target.default!)}`),
    `file://${join(dir, 'node_modules/create-a2a-agent/dist/index.js')}`,
  ])
  const shipped = filesUnder(runtimeDir)
  expect(shipped.filter((path) => path.endsWith('.test.js') || path.includes('__fixture__') || path.startsWith('src/'))).toEqual([])
  const programmatic = await run(process.execPath, ['--input-type=module', '-e', "const { runA2a } = await import('create-a2a-agent'); console.log(typeof runA2a)"], dir)
  expect(programmatic.stdout, programmatic.output).toBe('function\n')
}

async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  } finally {
    await client.end()
  }
}
