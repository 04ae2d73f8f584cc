/**
 * Several app processes on one database: a fresh database (a PostgreSQL database of its own on the
 * test server, or a SQLite file) migrated with examples/invoices' migrations, or a MariaDB database
 * of its own with the runtime's A2A tables only (its MySQL test schema, which `npm run
 * generate:prisma` writes; the agent runs without examples/invoices' entities there), two users with
 * API keys, and replicas of test/replicas/agent.ts started, killed (SIGKILL) and restarted as real
 * processes. Each test file drops its database after.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { openSse } from '@a2a-agent/runtime/testing'
import Database from 'better-sqlite3'
import mariadb from 'mariadb'
import pg from 'pg'
import { afterEach, expect } from 'vitest'

export type Kind = 'postgres' | 'sqlite' | 'mysql'

const root = fileURLToPath(new URL('../..', import.meta.url))
const server = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'
const mysqlServer = new URL(process.env.A2A_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql')

export interface TestDatabase {
  kind: Kind
  url: string
  /** Rows of one statement (`$1` placeholders on PostgreSQL, `?` on SQLite and MySQL, where `"` quotes identifiers too). */
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>
  /** Bearer tokens of the users alice and bob. */
  tokens: { alice: string; bob: string }
  /** Cuts every connection to the database but the caller's own, as a failover would; resolves how many. */
  cut(): Promise<number>
  drop(): Promise<void>
}

const migrationsOf = (folder: string) => {
  const dir = join(root, 'examples/invoices', folder, 'migrations')
  return readdirSync(dir)
    .filter((name) => /^\d/.test(name))
    .sort()
    .map((name) => readFileSync(join(dir, name, 'migration.sql'), 'utf8'))
}

/** One statement on the test server's own database (what a database cannot do to itself). */
export async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

export async function createDatabase(kind: Kind): Promise<TestDatabase> {
  const database = kind === 'postgres' ? await postgres() : kind === 'mysql' ? await mysql() : sqlite()
  const key = async (owner: string) => {
    const token = `a2a_${randomBytes(24).toString('base64url')}`
    const hash = createHash('sha256').update(token).digest('hex')
    // The MySQL database has the A2A tables only: no User table.
    if (kind !== 'mysql')
      await database.query(`INSERT INTO "User" ("id", "email", "name") VALUES (${ph(kind, 1)}, ${ph(kind, 2)}, ${ph(kind, 3)})`, [owner, `${owner}@example.com`, owner])
    await database.query(
      `INSERT INTO "A2AApiKey" ("id", "hash", "prefix", "owner", "createdAt") VALUES (${ph(kind, 1)}, ${ph(kind, 2)}, ${ph(kind, 3)}, ${ph(kind, 4)}, ${ph(kind, 5)})`,
      [`key-${owner}`, hash, token.slice(0, 12), owner, kind === 'sqlite' ? new Date().toISOString() : new Date()],
    )
    return token
  }
  return { ...database, tokens: { alice: await key('alice'), bob: await key('bob') } }
}

const ph = (kind: Kind, n: number) => (kind === 'postgres' ? `$${n}` : '?')

async function postgres(): Promise<Omit<TestDatabase, 'tokens'>> {
  const name = `a2a_replicas_${randomBytes(6).toString('hex')}`
  await onServer(`CREATE DATABASE "${name}"`)
  const url = new URL(server)
  url.pathname = `/${name}`
  const pool = new pg.Pool({ connectionString: url.href, max: 2 })
  // cut() ends this pool's idle connections too; the pool opens new ones, so the error is no news.
  pool.on('error', () => {})
  for (const migration of migrationsOf('prisma-postgresql')) await pool.query(migration)
  return {
    kind: 'postgres',
    url: url.href,
    query: async (text, values) => (await pool.query(text, values)).rows,
    cut: () => terminateBackends(url.href),
    async drop() {
      await pool.end()
      await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    },
  }
}

function sqlite(): Omit<TestDatabase, 'tokens'> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-replicas-'))
  const file = join(dir, 'app.db')
  const db = new Database(file)
  for (const migration of migrationsOf('prisma')) db.exec(migration)
  db.pragma('journal_mode = WAL')
  db.pragma('busy_timeout = 5000')
  return {
    kind: 'sqlite',
    url: `file:${file}`,
    query: async (text, values = []) => {
      const statement = db.prepare(text)
      return (statement.reader ? statement.all(...values) : (statement.run(...values), [])) as never[]
    },
    cut: async () => 0,
    async drop() {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function mysql(): Promise<Omit<TestDatabase, 'tokens'>> {
  const name = `a2a_replicas_${randomBytes(6).toString('hex')}`
  const connection = {
    host: mysqlServer.hostname,
    port: Number(mysqlServer.port || 3306),
    user: decodeURIComponent(mysqlServer.username),
    password: decodeURIComponent(mysqlServer.password),
  }
  const schema = readFileSync(join(root, 'packages/runtime/src/store/prisma/__fixture__/mysql/generated/schema.sql'), 'utf8')
  const admin = await mariadb.createConnection({ ...connection, multipleStatements: true })
  try {
    await admin.query(`CREATE DATABASE \`${name}\``)
    await admin.query(`USE \`${name}\`; ${schema}`)
  } finally {
    await admin.end()
  }
  // ANSI_QUOTES: the tests' statements quote identifiers as on PostgreSQL.
  const pool = mariadb.createPool({ ...connection, database: name, connectionLimit: 2, initSql: "SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')" })
  const url = new URL(mysqlServer.href)
  url.pathname = `/${name}`
  return {
    kind: 'mysql',
    url: url.href,
    query: async (text, values) => (await pool.query({ sql: text, bigIntAsNumber: true }, values)) as never[],
    async cut() {
      const killer = await mariadb.createConnection({ ...connection, database: name })
      try {
        const ids = (await killer.query('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()')) as { id: number }[]
        for (const { id } of ids) await killer.query(`KILL CONNECTION ${Number(id)}`).catch(() => undefined)
        return ids.length
      } finally {
        await killer.end()
      }
    },
    async drop() {
      await pool.end()
      const dropper = await mariadb.createConnection(connection)
      await dropper.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await dropper.end()
    },
  }
}

export interface Replica {
  name: string
  base: string
  /** The JSON-RPC endpoint's path: /a2a, or /a2a/replica behind a multi-agent host (HOST=1). */
  path: string
  child: ChildProcess
  /** Task ids whose `slow` run started on this replica, in order. */
  ran: string[]
  /** Every line it printed on stdout, parsed (`{"ran":…}`, `{"cut":…}`, …). */
  said: Record<string, unknown>[]
  /** Everything it printed on stderr. */
  stderr: string[]
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | NodeJS.Signals>
  kill9(): Promise<void>
  stop(): Promise<void>
}

const replicas = new Set<Replica>()

/** Starts test/replicas/agent.ts on `database` with extra environment; resolves once it listens. */
export async function startReplica(name: string, database: Pick<TestDatabase, 'url'>, env: Record<string, string> = {}): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./agent.ts', import.meta.url))], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: database.url, REPLICA_ID: name, ...env },
  })
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)))
  const ran: string[] = []
  const said: Record<string, unknown>[] = []
  const stderr: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line))
  const lines = createInterface({ input: child.stdout! })
  let path = '/a2a'
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica ${name} did not listen within 30 s: ${stderr.join('\n')}`)), 30_000)
    void exited.then((code) => reject(new Error(`replica ${name} exited (${code}) before listening: ${stderr.join('\n')}`)))
    lines.on('line', (line) => {
      const parsed = JSON.parse(line) as { port?: number; path?: string; ran?: string }
      said.push(parsed)
      if (parsed.ran) ran.push(parsed.ran)
      if (parsed.path) path = parsed.path
      if (parsed.port) {
        clearTimeout(timer)
        resolve(parsed.port)
      }
    })
  })
  const replica: Replica = {
    name,
    base: `http://127.0.0.1:${port}`,
    path,
    child,
    ran,
    said,
    stderr,
    exited,
    async kill9() {
      child.kill('SIGKILL')
      await exited
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
  replicas.add(replica)
  void exited.then(() => replicas.delete(replica))
  return replica
}

/** Kills every replica still running (for afterAll). */
export async function stopReplicas(): Promise<void> {
  await Promise.all([...replicas].map((replica) => replica.stop()))
}

/**
 * Replicas a and b on a fresh database of `kind`, started by each test that calls `start`; the
 * replicas are stopped and the database dropped after it. `start` resolves once each replica hears
 * the other's writes: on PostgreSQL, once both LISTEN (MySQL's change feed reads from the start).
 */
export function replicaPairs(kind: Kind): {
  readonly database: TestDatabase
  start(env?: Record<string, string>): Promise<{ a: Replica; b: Replica; token: string }>
} {
  let database: TestDatabase | undefined
  afterEach(async () => {
    await stopReplicas()
    await database?.drop()
    database = undefined
  })
  return {
    get database() {
      return database!
    },
    async start(env = {}) {
      database = await createDatabase(kind)
      const [a, b] = await Promise.all([startReplica('a', database, env), startReplica('b', database, env)])
      if (kind === 'postgres') await expect.poll(() => listeners(database!), { timeout: 10_000 }).toBe(2)
      return { a, b, token: database.tokens.alice }
    },
  }
}

/** How many connections of a PostgreSQL test database LISTEN: one per replica while notifications are live. */
export const listeners = async (database: TestDatabase) =>
  (await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'a2a task notifications'`))[0]!.n

/** SubscribeToTask on `replica` as `token`. */
export const subscribe = (replica: Replica, token: string, id: string) =>
  openSse(`${replica.base}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }), { 'A2A-Version': '1.0', Authorization: `Bearer ${token}` })

/** The status of each event a stream carried (a status update or a task snapshot). */
export const statuses = (events: { data: any }[]) => events.map((event) => event.data.result?.statusUpdate?.status ?? event.data.result?.task?.status)

export interface Reply {
  status: number
  headers: Headers
  body: any
}

let ids = 0

/** One JSON-RPC call over HTTP as `token`. */
export async function rpc(replica: Pick<Replica, 'base'> & Partial<Pick<Replica, 'path'>>, token: string, method: string, params: unknown): Promise<Reply> {
  const response = await fetch(`${replica.base}${replica.path ?? '/a2a'}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params }),
    // A request that hangs fails the test by name rather than by the test's timeout.
    signal: AbortSignal.timeout(20_000),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

export const message = (skill: string, text = skill, extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomBytes(12).toString('hex'), role: 'ROLE_USER', parts: [{ text }], metadata: { skill }, ...extra },
})

/** Terminates every backend of the database but the caller's own, as a failover would. */
export async function terminateBackends(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query('SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
    return rows[0].cut as number
  } finally {
    await client.end()
  }
}
