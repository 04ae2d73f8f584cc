/**
 * Fresh databases for the PrismaStore tests, one per test file and provider: a SQLite file in a
 * temporary folder, or a PostgreSQL database `a2a_store_<random>` on the server at
 * A2A_TEST_PG_URL (default postgresql://root@127.0.0.1:5432/postgres; .ci/run starts it). Each
 * gets the schema SQL `npm run generate:fixtures` wrote, applied directly, and is removed on close.
 * MySQL/MariaDB: a database `a2a_store_<random>` on A2A_TEST_MYSQL_URL (default
 * mysql://root@127.0.0.1:3306/mysql), likewise.
 * @module
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaMariaDb } from '@prisma/adapter-mariadb'
import { PrismaPg } from '@prisma/adapter-pg'
import Database from 'better-sqlite3'
import mariadb from 'mariadb'
import pg from 'pg'
import type { PrismaApiKeyClient } from '../../../auth/api-keys.js'
import type { PrismaInboxTokenClient } from '../../../inbox/prisma-tokens.js'
import type { PrismaTaskClient, RawQueryClient } from '../client.js'
import { execute } from '../raw.js'
import { sql } from '../../sql/sql.js'
import { raw } from 'sql-template-tag'
import { PrismaClient as MysqlClient } from './mysql/generated/client/client.js'
import { PrismaClient as PgClient } from './postgres/generated/client/client.js'
import { PrismaClient as SqliteClient } from './sqlite/generated/client/client.js'

export type Provider = 'sqlite' | 'postgres' | 'mysql'

/** A generated client typed only as the store sees it: assigning one proves it fits, cast-free. */
export type TestClient = PrismaTaskClient & PrismaApiKeyClient & PrismaInboxTokenClient & RawQueryClient & { $disconnect(): Promise<void> }

export interface TestDatabase {
  provider: Provider
  /** The database's URL, for a second client. */
  url: string
  db: TestClient
  /** Empties the task-store tables (kept events and files too) and the API keys. */
  clear(): Promise<void>
  /** Disconnects and removes the database. */
  close(): Promise<void>
}

/** Rows each query handed back, newest last: see {@link countingRows}. */
export type RowLog = number[]

const schemaSql = (provider: Provider) => readFile(new URL(`./${provider}/generated/schema.sql`, import.meta.url), 'utf8')

export async function openDatabase(provider: Provider, rowLog?: RowLog): Promise<TestDatabase> {
  return provider === 'sqlite' ? openSqlite(rowLog) : provider === 'mysql' ? openMysql(rowLog) : openPostgres(rowLog)
}

async function openMysql(rowLog?: RowLog): Promise<TestDatabase> {
  const server = new URL(process.env.A2A_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql')
  const name = `a2a_store_${randomBytes(6).toString('hex')}`
  const connection = { host: server.hostname, port: Number(server.port || 3306), user: decodeURIComponent(server.username), password: decodeURIComponent(server.password) }
  const admin = await mariadb.createConnection({ ...connection, multipleStatements: true }).catch((error: Error) => {
    throw new Error(`MySQL/MariaDB at ${server.host} is not reachable (${error.message}); start it (service mariadb start) or set A2A_TEST_MYSQL_URL`)
  })
  try {
    await admin.query(`CREATE DATABASE \`${name}\``)
    await admin.query(`USE \`${name}\`; ${await schemaSql('mysql')}`)
  } finally {
    await admin.end()
  }
  const adapter = new PrismaMariaDb({ ...connection, database: name })
  if (rowLog) countingRows(adapter, rowLog)
  const db: TestClient = new MysqlClient({ adapter })
  const url = new URL(server.href)
  url.pathname = `/${name}`
  return {
    provider: 'mysql',
    url: url.href,
    db,
    clear: () => clear(db),
    async close() {
      await db.$disconnect()
      const drop = await mariadb.createConnection(connection)
      await drop.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await drop.end()
    },
  }
}

async function openSqlite(rowLog?: RowLog): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-store-'))
  const url = `file:${join(dir, 'store.db')}`
  const setup = await new PrismaBetterSQLite3({ url }).connect()
  await setup.executeScript(await schemaSql('sqlite'))
  await setup.dispose()
  const adapter = new PrismaBetterSQLite3({ url })
  if (rowLog) countingRows(adapter, rowLog)
  const db: TestClient = new SqliteClient({ adapter })
  return {
    provider: 'sqlite',
    url,
    db,
    clear: () => clear(db),
    async close() {
      await db.$disconnect()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function openPostgres(rowLog?: RowLog): Promise<TestDatabase> {
  const server = new URL(process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres')
  const name = `a2a_store_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: server.href })
  await admin.connect().catch((error: Error) => {
    throw new Error(`PostgreSQL at ${server.host} is not reachable (${error.message}); start it (pg_ctlcluster --skip-systemctl-redirect 15 main start) or set A2A_TEST_PG_URL`)
  })
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(server.href)
  url.pathname = `/${name}`
  const setup = new pg.Client({ connectionString: url.href })
  await setup.connect()
  await setup.query(await schemaSql('postgres'))
  await setup.end()
  const adapter = new PrismaPg({ connectionString: url.href })
  if (rowLog) countingRows(adapter, rowLog)
  const db: TestClient = new PgClient({ adapter })
  return {
    provider: 'postgres',
    url: url.href,
    db,
    clear: () => clear(db),
    async close() {
      await db.$disconnect()
      const drop = new pg.Client({ connectionString: server.href })
      await drop.connect()
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await drop.end()
    },
  }
}

async function clear(db: TestClient): Promise<void> {
  await db.a2ATask.deleteMany({})
  await db.a2ATaskMessage.deleteMany({})
  await db.a2APushConfig.deleteMany({})
  await db.a2AApiKey.deleteMany({})
  // Kept events and files are keyed by task ids the next test reuses.
  for (const table of ['A2ATaskEvent', 'A2AArtifactFile']) await execute(db, sql`DELETE FROM ${raw(`"${table}"`)}`)
}

interface Queryable {
  queryRaw(query: unknown): Promise<{ rows: unknown[] }>
  startTransaction?(...args: unknown[]): Promise<Queryable>
}

/**
 * Records how many rows every query of the adapter's connections returns, transactions included:
 * the proof that filtering and trimming happen in SQL, not over rows loaded into the process.
 */
export function countingRows(factory: { connect(): Promise<unknown> }, log: RowLog): void {
  const watch = <T>(queryable: T): T => {
    const target = queryable as Queryable
    const queryRaw = target.queryRaw.bind(target)
    target.queryRaw = async (query) => {
      const result = await queryRaw(query)
      log.push(result.rows.length)
      return result
    }
    const startTransaction = target.startTransaction?.bind(target)
    if (startTransaction) target.startTransaction = async (...args) => watch(await startTransaction(...args))
    return queryable
  }
  const connect = factory.connect.bind(factory)
  factory.connect = async () => watch(await connect())
}

/**
 * Records how many rows every better-sqlite3 statement's `all()` returns, on every connection in
 * the process, until the returned function is called: the same proof for SqliteStore, which
 * reads all its rows through `all()` on its own connection. Only SqliteStore should run meanwhile.
 */
export function countingStatementRows(log: RowLog): () => void {
  const probe = new Database(':memory:')
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { all(...params: unknown[]): unknown[] }
  probe.close()
  const all = statement.all
  statement.all = function (this: unknown, ...params: unknown[]) {
    const rows = all.apply(this, params)
    log.push(rows.length)
    return rows
  }
  return () => {
    statement.all = all
  }
}

/** `work` on a PostgreSQL connection of its own to `url`, closed after. */
export async function onPostgres<R>(url: string, work: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** `work` on a MySQL/MariaDB connection of its own to `url` (`mysql://`), closed after. */
export async function onMysql<R>(url: string, work: (connection: mariadb.Connection) => Promise<R>): Promise<R> {
  const connection = await mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'))
  try {
    return await work(connection)
  } finally {
    await connection.end()
  }
}

/**
 * Process ids of the backends of the database at `url` waiting on a lock, those whose statement
 * starts with `queryPrefix` when given, asked on a connection of its own: a caller's open
 * transaction would see one snapshot of pg_stat_activity all along.
 */
export function lockWaiters(url: string, queryPrefix = ''): Promise<number[]> {
  return onPostgres(url, async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND starts_with(query, $1)`,
      [queryPrefix],
    )
    return rows.map((row) => row.pid)
  })
}
