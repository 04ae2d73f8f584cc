/**
 * Bench target: ours.ts's exchange on the store BENCH_STORE names: `memory` (MemoryStore),
 * `sqlite` or `postgres` (PrismaStore through the runtime's test-fixture Prisma clients) or
 * `sqlite-direct` (SqliteStore on its own better-sqlite3 connection) or `postgres-direct`
 * (PostgresStore on its own node-postgres pool), `mysql` (PrismaStore through @prisma/adapter-mariadb)
 * or `mysql-direct` (MysqlStore on its own mariadb pool), on the database at
 * BENCH_DB_URL, which stores.bench.ts created with the schema and removes after. /bench/queries
 * counts statements at Prisma's adapter, at pg's Client for postgres-direct and at mariadb's
 * connections for mysql-direct (SqliteStore's stay uncounted). BENCH_PUSH_OUTBOX=1 (mysql-direct
 * only) starts a MysqlPushOutbox on the store's database, so each task write with events also
 * writes its outbox rows, as an app's does once it has one (none here: no send sets a push config).
 * Mounted as generated apps mount it (a2aListener in front of an Express app holding
 * /bench/queries), so GetTask's rate is the store's and not Express routing's.
 * Prints `{"port":N}` on stdout once listening; runs until SIGTERM.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { a2aListener, createExchange, createHttpServer, defineSkill, type Store } from '@a2a-agent/runtime'
import { MysqlStore, PostgresStore, PrismaStore, SqliteStore, prepareSqlite } from '@a2a-agent/runtime/prisma'
import { MysqlPushOutbox } from '@a2a-agent/runtime/mysql-push-outbox'
import { BENCH_TOKEN } from './shared.js'
import { doneSkill } from './done-skill.mjs'

const done = doneSkill(defineSkill)

const kind = process.env.BENCH_STORE ?? 'memory'
const url = process.env.BENCH_DB_URL ?? ''
let disconnect = async (): Promise<void> => {}

/** SQL statements the store sent, by text (numbers and quoted literals folded), for /bench/queries. */
const statements = new Map<string, number>()

interface Queryable {
  queryRaw(query: { sql: string }): Promise<unknown>
  executeRaw(query: { sql: string }): Promise<unknown>
  startTransaction?(...args: unknown[]): Promise<Queryable>
}

/** Counts every statement of the adapter's connections, transactions included. */
function countingStatements<T extends { connect(): Promise<unknown> }>(factory: T): T {
  const watch = <Q>(queryable: Q): Q => {
    const target = queryable as Queryable
    for (const method of ['queryRaw', 'executeRaw'] as const) {
      const original = target[method].bind(target)
      target[method] = (query) => {
        count(query.sql)
        return original(query)
      }
    }
    const startTransaction = target.startTransaction?.bind(target)
    if (startTransaction) {
      target.startTransaction = async (...args) => {
        statements.set('(begin transaction)', (statements.get('(begin transaction)') ?? 0) + 1)
        return watch(await startTransaction(...args))
      }
    }
    return queryable
  }
  const connect = factory.connect.bind(factory)
  factory.connect = async () => watch(await connect())
  return factory
}

/** Counts every statement a pg Client sends (a pool's queries go through its clients), BEGIN and COMMIT too. */
async function countingPgStatements(): Promise<void> {
  const { default: pg } = await import('pg')
  const query = pg.Client.prototype.query as (this: unknown, ...args: unknown[]) => unknown
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string }
    count(typeof config === 'string' ? config : (config.text ?? ''))
    return query.apply(this, args)
  } as typeof pg.Client.prototype.query
}

/** Counts every statement a mariadb connection sends (MysqlStore's go through the pool's connections), COMMIT too. */
async function countingMariadbStatements(): Promise<void> {
  const { createRequire } = await import('node:module')
  const ConnectionPromise = createRequire(import.meta.url)('mariadb/lib/connection-promise.js') as { prototype: { query(this: unknown, ...args: unknown[]): unknown } }
  const query = ConnectionPromise.prototype.query
  ConnectionPromise.prototype.query = function (this: unknown, ...args: unknown[]) {
    count(String(args[0]))
    return query.apply(this, args)
  }
}

/** Folded keys by statement text: folding each statement anew cost the server ~35 µs per SendMessage. */
const folded = new Map<string, string>()

function count(sql: string): void {
  let key = folded.get(sql)
  if (key === undefined) {
    key = sql
      .replace(/\s+/g, ' ')
      .replace(/\$\d+|\?/g, '?')
      .slice(0, 160)
    if (folded.size < 10_000) folded.set(sql, key)
  }
  statements.set(key, (statements.get(key) ?? 0) + 1)
}

async function openStore(): Promise<Store | undefined> {
  if (kind === 'memory') return undefined
  if (kind === 'sqlite') {
    const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3')
    const { PrismaClient } = await import('../../packages/runtime/src/store/prisma/__fixture__/sqlite/generated/client/client.js')
    const db = new PrismaClient({ adapter: countingStatements(new PrismaBetterSQLite3({ url })) })
    await prepareSqlite(db)
    disconnect = () => db.$disconnect()
    return new PrismaStore(db)
  }
  if (kind === 'postgres') {
    const { PrismaPg } = await import('@prisma/adapter-pg')
    const { PrismaClient } = await import('../../packages/runtime/src/store/prisma/__fixture__/postgres/generated/client/client.js')
    const db = new PrismaClient({ adapter: countingStatements(new PrismaPg({ connectionString: url })) })
    await db.$connect()
    disconnect = () => db.$disconnect()
    return new PrismaStore(db)
  }
  if (kind === 'sqlite-direct') {
    const store = new SqliteStore(url)
    disconnect = async () => store.close()
    return store
  }
  if (kind === 'postgres-direct') {
    await countingPgStatements()
    const store = new PostgresStore(url)
    disconnect = () => store.close()
    return store
  }
  if (kind === 'mysql') {
    const { PrismaMariaDb } = await import('@prisma/adapter-mariadb')
    const { PrismaClient } = await import('../../packages/runtime/src/store/prisma/__fixture__/mysql/generated/client/client.js')
    const parsed = new URL(url)
    const config = {
      host: parsed.hostname,
      port: Number(parsed.port || 3306),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: parsed.pathname.slice(1),
    }
    const db = new PrismaClient({ adapter: countingStatements(new PrismaMariaDb(config)) })
    await db.$connect()
    disconnect = () => db.$disconnect()
    return new PrismaStore(db)
  }
  if (kind === 'mysql-direct') {
    await countingMariadbStatements()
    const store = new MysqlStore(url)
    disconnect = () => store.close()
    return store
  }
  throw new Error(`BENCH_STORE must be memory, sqlite, sqlite-direct, postgres, postgres-direct, mysql or mysql-direct, got ${JSON.stringify(kind)}`)
}

const store = await openStore()
if (process.env.BENCH_PUSH_OUTBOX === '1' && kind !== 'mysql-direct') throw new Error(`BENCH_PUSH_OUTBOX=1 runs with BENCH_STORE=mysql-direct only, not ${JSON.stringify(kind)}`)
const outbox = process.env.BENCH_PUSH_OUTBOX === '1' ? new MysqlPushOutbox({ url }) : undefined
/** `Bearer <token>` is the owner `bench`; `Bearer <token>.<k>` the owner `bench-<k>`. */
function ownerOf(authorization: string | undefined): { owner: string } | undefined {
  if (authorization === `Bearer ${BENCH_TOKEN}`) return { owner: 'bench' }
  const suffix = authorization?.startsWith(`Bearer ${BENCH_TOKEN}.`) ? authorization.slice(`Bearer ${BENCH_TOKEN}.`.length) : ''
  return /^\d{1,4}$/.test(suffix) ? { owner: `bench-${suffix}` } : undefined
}

const exchange = createExchange({
  skills: [done],
  ...(store ? { store } : {}),
  ...(outbox ? { pushDelivery: outbox } : {}),
  resolvePrincipal: (request) => ownerOf(request.headers.authorization),
  card: { name: `Bench (${kind})`, description: 'Store throughput target', version: '0.0.0' },
  // One owner takes all of wrk's connections, past any cap; BENCH_RUN_CAP=default keeps the
  // exchange's default cap (how generated apps run; the driver then spreads sends over owners).
  ...(process.env.BENCH_RUN_CAP === 'default' ? {} : { maxConcurrentRunsPerOwner: -1 }),
})

// Started once attached: the store then writes the outbox rows with its task writes.
await outbox?.start()

const app = express()
app.disable('x-powered-by')
// Statements sent so far, by text: the driver reads it around a run to get statements per request.
app.get('/bench/queries', (_request, response) => {
  response.json(Object.fromEntries(statements))
})
const server = createHttpServer(a2aListener(exchange, app)).listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }))
})

process.once('SIGTERM', async () => {
  await exchange.shutdown({ timeoutMs: 1000 })
  await outbox?.stop().catch(() => {})
  await disconnect().catch(() => {})
  server.closeAllConnections()
  // process.exit still writes a --cpu-prof profile.
  server.close(() => process.exit(0))
})
