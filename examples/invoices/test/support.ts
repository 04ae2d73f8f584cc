// Starts the app for the tests (test/*.test.ts and the generated test/entities/*.gen.test.ts), on
// the database DATABASE_URL names: unset or `file:`, a fresh SQLite file; `postgresql://` or
// `mysql://`, a throwaway database on that server (`npm run test:postgresql`, `npm run
// test:mysql`). This file is yours: `a2a generate entities` created it once and never rewrites it;
// change it as the app grows.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import mariadb from 'mariadb'
import pg from 'pg'
import { createHttpServer, devKeyResolver, type PrincipalResolver } from '@a2a-agent/runtime'
import { prepareSqlite } from '@a2a-agent/runtime/prisma'
import { createApp, type AppOptions } from '../src/app.js'
import { createDb, createStore, isMysql, isPostgresql, type Db } from '../src/db.js'
import { jobQueue } from '../src/jobs.js'
import { createOwners, testOwners } from './owners.gen.js'

export interface TestApp {
  /** The running app's base URL, e.g. http://127.0.0.1:53124. */
  url: string
  /** The entity agent's JSON-RPC endpoint (the reporting agent's is /a2a/reports). */
  a2aUrl: string
  /**
   * Bearer tokens of two users; the tests check that neither reaches the other's rows. `reader` is
   * alice with a credential narrowed to the scope invoices:read.
   */
  tokens: { alice: string; bob: string; reader: string }
  /** The app's database, for rows the tests make that agents cannot. */
  db: Db
  close(): Promise<void>
}

interface TestDatabase {
  url: string
  remove(): Promise<void>
}

const appRoot = fileURLToPath(new URL('..', import.meta.url))

/** A fresh SQLite database with every migration applied, in its own temporary folder. */
function sqliteDatabase(): TestDatabase {
  const migrations = new URL('../prisma/migrations/', import.meta.url)
  const dir = mkdtempSync(join(tmpdir(), 'invoices-test-'))
  const file = join(dir, 'test.db')
  const remove = async () => rmSync(dir, { recursive: true, force: true })
  const sqlite = new Database(file)
  try {
    for (const name of readdirSync(migrations)
      .filter((entry) => /^\d/.test(entry))
      .sort()) {
      sqlite.exec(readFileSync(new URL(`${name}/migration.sql`, migrations), 'utf8'))
    }
  } catch (error) {
    sqlite.close()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  sqlite.close()
  return { url: `file:${file}`, remove }
}

// The Prisma CLI's wasm schema engine leaves a 10 s timer armed after `migrate deploy` on
// PostgreSQL, so the finished process would idle that long; unreferenced, it exits at once.
const unrefLongTimers =
  'data:text/javascript,const set=globalThis.setTimeout;globalThis.setTimeout=(fn,ms,...args)=>{const timer=set(fn,ms,...args);if(ms>=10000)timer.unref();return timer}'

/**
 * A database `invoices_test_<random>` on the server of `serverUrl`, created from its `postgres`
 * database and migrated by `prisma migrate deploy` (prisma-postgresql/migrations, through the
 * adapter in prisma.config.ts), as `npm run db:migrate` does in production; dropped by remove().
 */
async function postgresqlDatabase(serverUrl: string): Promise<TestDatabase> {
  const admin = new URL(serverUrl)
  admin.pathname = '/postgres'
  const name = `invoices_test_${randomBytes(6).toString('hex')}`
  const onAdmin = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin.href })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await onAdmin(`CREATE DATABASE "${name}"`)
  const remove = () => onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  try {
    const prisma = createRequire(import.meta.url).resolve('prisma/build/index.js')
    await promisify(execFile)(process.execPath, ['--import', unrefLongTimers, prisma, 'migrate', 'deploy'], {
      cwd: appRoot,
      env: { ...process.env, DATABASE_URL: url.href },
    })
  } catch (error) {
    await remove()
    throw error
  }
  return { url: url.href, remove }
}

/**
 * A database `invoices_test_<random>` on the MySQL/MariaDB server of `serverUrl`, migrated by
 * `a2a migrate deploy` (prisma-mysql/migrations; Prisma's wasm schema engine has no MySQL
 * connector), which also creates it, as `npm run db:migrate` does on the other databases; dropped by remove().
 */
async function mysqlDatabase(serverUrl: string): Promise<TestDatabase> {
  const url = new URL(serverUrl)
  const name = `invoices_test_${randomBytes(6).toString('hex')}`
  url.pathname = `/${name}`
  const remove = async () => {
    const admin = await mariadb.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    })
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``).finally(() => admin.end())
  }
  try {
    await promisify(execFile)('npx', ['--no-install', 'a2a', 'migrate', 'deploy', '--schema', 'prisma-mysql'], { cwd: appRoot, env: { ...process.env, DATABASE_URL: url.href } })
  } catch (error) {
    await remove()
    throw error
  }
  return { url: url.href, remove }
}

/** The app on a free port and its own database, with development keys for alice and bob; `v03` as the app's option. */
export async function createTestApp({ v03 }: Pick<AppOptions, 'v03'> = {}): Promise<TestApp> {
  const tokens = { alice: 'key-alice', bob: 'key-bob', reader: 'key-alice-reader' }
  const serverUrl = process.env.DATABASE_URL
  const database = serverUrl && isPostgresql(serverUrl) ? await postgresqlDatabase(serverUrl) : serverUrl && isMysql(serverUrl) ? await mysqlDatabase(serverUrl) : sqliteDatabase()
  const db = createDb(database.url)
  const sqlite = !isPostgresql(database.url) && !isMysql(database.url)
  try {
    if (sqlite) await prepareSqlite(db)
    // Invoices and customers belong to users: the owners the tests act as must exist.
    await createOwners(db)
  } catch (error) {
    await db.$disconnect()
    await database.remove()
    throw error
  }
  // The store the app runs with on this database (src/main.ts): SqliteStore, PostgresStore or MysqlStore.
  const store = createStore(database.url)
  const sessions = devKeyResolver(`${testOwners.alice}:${tokens.alice},${testOwners.bob}:${tokens.bob}`)
  // A narrowed credential, as `a2a keys create --scopes invoices:read` makes one.
  const resolvePrincipal: PrincipalResolver = (request) =>
    request.headers.authorization === `Bearer ${tokens.reader}` ? { owner: testOwners.alice, scopes: ['invoices:read'] } : sessions(request)
  // The job queue the app runs with on this database (see src/main.ts), and a worker on it.
  const queue = await jobQueue(database.url)
  const { listener, host } = createApp({ db, store, resolvePrincipal, v03, jobQueue: queue })
  const worker = host.jobWorker()
  await worker.start()
  const server = createHttpServer(listener).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    // The generated entity tests talk to the entity agent.
    a2aUrl: `http://127.0.0.1:${port}/a2a/invoices`,
    tokens,
    db,
    async close() {
      await worker.stop()
      await host.shutdown({ timeoutMs: 1000 })
      await queue.stop()
      server.closeAllConnections()
      server.close()
      await store.close()
      await db.$disconnect()
      await database.remove()
    },
  }
}
