// End to end, offline: scaffold a SQLite and a PostgreSQL app inside this repository (so Node resolves the local
// runtime and CLI from the root node_modules), run the scaffolder's own steps on it, then the
// app's type-check and its tests, and start the SQLite one as a person would. A last run goes
// through `scaffold` with a recording runner.
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { captureIo } from '../cli/test-io.js'
import { bin, checkApp, devTokens, env, scaffoldApp, scaffoldRoot, sendMessage, startApp, userEnv } from './e2e-support.js'
import { runCreate } from './index.js'
import { type Run, run } from './steps.js'

const root = scaffoldRoot()
let sqliteApp: string

/** `npx a2a …` in the app, as a person runs it: the bin, without this repository's source condition. */
async function a2a(app: string, ...args: string[]) {
  return promisify(execFile)('npx', ['a2a', ...args], { cwd: app, env: userEnv() }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  )
}

const hello = { text: 'Ada' }
const helloSkill = { skill: 'hello' }
const createNote = { data: { skill: 'entity.notes', operation: 'create', arguments: { title: 'Milk' } } }

describe('a scaffolded app', () => {
  it('SQLite, example entity: generates, migrates, seeds, type-checks and passes its own tests', { timeout: 300_000 }, async () => {
    const { app, sql, output } = await scaffoldApp(root, 'my-agent', [], 'sqlite', env)
    expect(output).toMatch(/\nNext:\n {2}cd .*my-agent\n {2}npm run dev .*\n {2}npm test\n$/)
    sqliteApp = app
    expect(sql).toContain('CREATE TABLE "Note"')
    const { tests } = await checkApp(app, env)
    expect(tests).toMatch(/Test Files +2 passed/)
    // Nothing to change: said without Prisma's warning to remove the datasource url (which must stay).
    const noop = await run(process.execPath, [bin('prisma/build/index.js'), 'migrate', 'dev'], { cwd: app, env })
    expect(noop.code, noop.stderr).toBe(0)
    expect(noop.stdout).toContain('Already in sync')
    expect(noop.stdout + noop.stderr).not.toContain('WARNING')
  })

  it('started without A2A_DEV_KEYS, answers 401 to the old default tokens and 200 to a key from `a2a keys create`', { timeout: 180_000 }, async () => {
    expect(sqliteApp, 'the first test scaffolds the app').toBeDefined()
    // An empty A2A_DEV_KEYS wins over .env's: the app runs as deployed, on API keys alone.
    const running = await startApp(sqliteApp, 'start', { A2A_DEV_KEYS: '' })
    try {
      expect(running.output()).toContain('(API keys)')
      for (const token of ['key-alice', devTokens(sqliteApp).alice!]) {
        expect((await sendMessage(running.url, token, hello, helloSkill)).status).toBe(401)
        expect((await sendMessage(running.url, token, createNote)).status).toBe(401)
      }
      const created = await a2a(sqliteApp, 'keys', 'create', '--user', 'alice')
      expect(created.code, created.stderr).toBe(0)
      const key = created.stdout.trim()
      const greeted = await sendMessage(running.url, key, hello, helloSkill)
      expect(greeted.status).toBe(200)
      expect(greeted.body.result.task.artifacts[0].parts[0].text).toBe('Hello, Ada!')
      const note = await sendMessage(running.url, key, createNote)
      expect(note.status).toBe(200)
      expect(note.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
      expect(note.body.result.task.artifacts[0].parts[0].data).toMatchObject({ title: 'Milk', userId: 'alice' })

      // An owner that is no User row gets no key.
      const refused = await a2a(sqliteApp, 'keys', 'create', '--user', 'mallory')
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('--user mallory: no User.id is "mallory"')
    } finally {
      await running.stop()
    }
  })

  it('takes the random development keys of its .env in development, and refuses to start with them in production', { timeout: 120_000 }, async () => {
    expect(sqliteApp, 'the first test scaffolds the app').toBeDefined()
    const tokens = devTokens(sqliteApp)
    expect(Object.keys(tokens)).toEqual(['alice', 'bob'])
    expect(tokens.alice).toMatch(/^dev-alice-[\w-]{24}$/)
    expect(readFileSync(join(sqliteApp, '.env.example'), 'utf8')).toMatch(/^A2A_DEV_KEYS=$/m)
    expect(readFileSync(join(sqliteApp, '.gitignore'), 'utf8')).toMatch(/^\.env$/m)

    const running = await startApp(sqliteApp, 'start')
    try {
      // The seed added the users the development keys name: bob's note is created.
      const note = await sendMessage(running.url, tokens.bob!, createNote)
      expect(note.body.result.task.artifacts[0].parts[0].data).toMatchObject({ title: 'Milk', userId: 'bob' })
      expect((await sendMessage(running.url, 'key-bob', createNote)).status).toBe(401)
    } finally {
      await running.stop()
    }

    const production = await promisify(execFile)('npm', ['run', '--silent', 'start'], { cwd: sqliteApp, env: userEnv({ NODE_ENV: 'production' }) }).catch((error) => error)
    expect(production.code).toBe(1)
    expect(production.stderr).toContain('my-agent: A2A_DEV_KEYS is set while NODE_ENV=production: development keys must not reach a deployment. Unset A2A_DEV_KEYS')
  })

  it('SQLite, two agents in one app (--multi-agent): the same, against the main agent', { timeout: 180_000 }, async () => {
    const { app } = await scaffoldApp(root, 'multi-agent', ['--multi-agent'], 'sqlite', env)
    const { tests } = await checkApp(app, env)
    expect(tests).toMatch(/Test Files +2 passed/)
    expect(readFileSync(join(app, 'src/app.ts'), 'utf8')).toContain("{ id: 'helper', skills: [hello]")
  })

  // The scaffolder creates the database DATABASE_URL names; the app's test/support.ts makes (and
  // drops) a throwaway database per test file on the same server.
  it('PostgreSQL, empty: creates its database, then the same, on the test server', { timeout: 180_000 }, async () => {
    const server = new URL(process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres')
    const database = new URL(server)
    database.pathname = `/e2e_pg_agent_${process.pid}`
    const stepEnv = { DATABASE_URL: database.href }
    try {
      const { app, sql, output } = await scaffoldApp(root, 'pg-agent', ['--database', 'postgresql', '--empty'], 'postgresql', stepEnv)
      expect(output).toContain(`Created the database ${database.href}.`)
      expect(readFileSync(join(app, '.env'), 'utf8')).toContain(`DATABASE_URL=${database.href}\n`)
      expect(readFileSync(join(app, '.env.example'), 'utf8')).toContain('DATABASE_URL=postgresql://postgres@localhost:5432/pg_agent\n')
      expect(sql).not.toContain('"Note"')
      const { tests } = await checkApp(app, stepEnv)
      expect(tests).toMatch(/Test Files +1 passed/)
      await expectSetupFailureLeavesNoDatabase(app, server)
    } finally {
      await dropDatabase(server.href, database.pathname.slice(1))
    }
  })

  it('runs install, generate, migration, seed and git in order, with progress', async () => {
    const app = join(root, 'steps-agent')
    const calls: string[] = []
    const recorder: Run = async (command, args, options) => {
      calls.push([command === process.execPath ? 'node' : command, ...args.map((arg) => (arg.includes('node_modules') ? '<prisma>' : arg))].join(' '))
      expect(options.cwd).toBe(app)
      if (args.includes('migrate')) expect(options.env).toMatchObject(env)
      // Every step finds the app's bins (the seed's tsx) first, whatever PATH started the scaffolder.
      if (command !== 'git') expect(options.env?.PATH?.split(':')[0]).toBe(join(app, 'node_modules/.bin'))
      return { code: 0, stdout: '', stderr: '' }
    }
    const { io, stdout } = captureIo()
    const previous = process.env.DATABASE_URL
    delete process.env.DATABASE_URL
    try {
      expect(await runCreate([app, '--yes'], io, { run: recorder })).toBe(0)
    } finally {
      if (previous !== undefined) process.env.DATABASE_URL = previous
    }
    expect(calls).toEqual([
      'npm install --no-audit --no-fund',
      'node <prisma> migrate dev --name init',
      'node <prisma> db seed',
      'git rev-parse --is-inside-work-tree',
      'git init --quiet',
      'git add --all',
      'git commit --quiet --message Initial commit from create-a2a-agent',
    ])
    expect(stdout()).toMatch(
      /- Installing dependencies .*done[\s\S]*- Generating entity tools .*done[\s\S]*- Creating and applying the first migration .*done[\s\S]*- Adding the development users .*done[\s\S]*- Creating a git repository .*done[\s\S]*Next:\n {2}cd .*\n {2}npm run dev .*\n {2}npm test\n$/,
    )
    expect(readFileSync(join(app, 'src/a2a/entities.gen.ts'), 'utf8')).toContain('notesTools(db)')
  })
})

async function dropDatabase(server: string, name: string) {
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}

/**
 * The app's tests against a migration that fails half-way: they fail, and the throwaway database
 * their support file made is dropped all the same. The run connects as a role of its own, so the
 * databases it owns are told apart from those of tests running beside it.
 */
async function expectSetupFailureLeavesNoDatabase(app: string, server: URL) {
  const role = `e2e_setup_${process.pid}`
  const broken = join(app, 'prisma/migrations/99999999999999_broken')
  const admin = new pg.Client({ connectionString: server.href })
  await admin.connect()
  try {
    await admin.query(`DROP ROLE IF EXISTS "${role}"`)
    await admin.query(`CREATE ROLE "${role}" LOGIN CREATEDB`)
    mkdirSync(broken)
    writeFileSync(join(broken, 'migration.sql'), 'ALTER TABLE "NoSuchTable" ADD COLUMN "x" TEXT;\n')
    const asRole = new URL(server)
    asRole.username = role
    const tests = await run(process.execPath, [bin('vitest/vitest.mjs'), 'run', '--root', app], {
      cwd: app,
      env: { DATABASE_URL: asRole.href, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    })
    expect(tests.code).not.toBe(0)
    expect(tests.stdout + tests.stderr).toContain('NoSuchTable')
    const left = await admin.query('SELECT d.datname FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE r.rolname = $1', [role])
    expect(left.rows).toEqual([])
  } finally {
    rmSync(broken, { recursive: true, force: true })
    const owned = await admin.query('SELECT d.datname FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE r.rolname = $1', [role])
    for (const { datname } of owned.rows as { datname: string }[]) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
    await admin.query(`DROP ROLE IF EXISTS "${role}"`)
    await admin.end()
  }
}
