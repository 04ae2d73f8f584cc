import { readFile } from 'node:fs/promises'
import { createServer, connect, type Server, type Socket } from 'node:net'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeRecord } from '../conformance-fixtures.js'
import { onPostgres, openDatabase, type TestDatabase } from '../prisma/__fixture__/databases.js'
import { isConnectionLoss } from './postgres/executor.js'
import { PostgresStore } from './postgres/postgres-store.js'
import { PrismaStore } from '../prisma/prisma-store.js'
import { POSTGRES_STORE_SCHEMA, TaskStoreSchemaError } from './schema-check.js'
import { SqliteStore } from './sqlite/sqlite-store.js'

/** The files whose SQL the stores send over prisma/a2a.prisma's tables (the push outbox makes its own); every identifier they quote must be a listed table or column, or an alias. */
const STATEMENT_FILES = ['./statements.ts', './postgres/postgres-store.ts', './postgres/notifications.ts', './postgres/reads.ts', './postgres/counters.ts', './artifact-files.ts']
/** Names the statements give their CTEs and result columns. */
const ALIASES = [
  'configs',
  'counted',
  'counts',
  'created',
  'doomed',
  'events',
  'foundBy',
  'foundFor',
  'h',
  'held',
  'k',
  'kept',
  'lim',
  'live',
  'locked',
  'locks',
  'messages',
  'mine',
  'n',
  'next',
  'note',
  'ord',
  'pruned',
  'pushed',
  'rank',
  'ranked',
  'req',
  'row',
  'sent',
  'taken',
  'total',
  'ttl',
  'written',
]

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

it("lists every table and column the stores' statements name", async () => {
  const sources = await Promise.all(STATEMENT_FILES.map((file) => readFile(new URL(file, import.meta.url), 'utf8')))
  const quoted = new Set(sources.flatMap((source) => [...source.matchAll(/"([A-Za-z_]\w*)"/g)].map((match) => match[1]!)))
  const listed = new Set([...Object.keys(POSTGRES_STORE_SCHEMA), ...Object.values(POSTGRES_STORE_SCHEMA).flat(), ...ALIASES])
  expect([...quoted].filter((name) => !listed.has(name))).toEqual([])
})

describe("SqliteStore checks the file's schema as it opens", () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openDatabase('sqlite')
  })
  afterAll(() => database?.close())

  const file = () => database.url.replace(/^file:/, '')

  it('opens a fully migrated file and serves from it', async () => {
    const store = new SqliteStore(database.url)
    await store.ready()
    await store.create(makeRecord({ id: 'migrated' }))
    expect(await store.get('migrated')).toMatchObject({ id: 'migrated' })
    store.close()
  })

  it('refuses a file migrated by an older history, naming the missing table and column and what to run', () => {
    const db = new Database(file())
    db.exec('DROP TABLE "A2AArtifactFile"; ALTER TABLE "A2ATask" DROP COLUMN "runner"')
    db.close()
    let error: unknown
    try {
      new SqliteStore(database.url)
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(TaskStoreSchemaError)
    expect((error as TaskStoreSchemaError).missing).toEqual(['A2ATask.runner', 'A2AArtifactFile'])
    expect((error as Error).message).toMatch(
      /^SqliteStore: the database lacks A2ATask\.runner, A2AArtifactFile, .*npm run db:change -- --name <name>.*npx a2a generate entities.*npm run db:migrate/,
    )
  })

  it('refuses a file without any table', async () => {
    const empty = `${file()}.empty`
    new Database(empty).close()
    expect(() => new SqliteStore(`file:${empty}`)).toThrow('SqliteStore: the database lacks A2ATask, A2ATaskMessage, A2APushConfig, A2AArtifactFile, ')
  })
})

describe("PostgresStore checks the database's schema before its first statement", () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openDatabase('postgres')
  })
  afterAll(() => database?.close())

  it('opens a fully migrated database and serves from it', async () => {
    const store = new PostgresStore(database.url, { max: 2 })
    try {
      await store.ready()
      await store.create(makeRecord({ id: 'migrated' }))
      expect(await store.get('migrated')).toMatchObject({ id: 'migrated' })
    } finally {
      await store.close()
    }
  })

  it("answers every statement with one clear error when a table and a column are missing, not the database's", async () => {
    await onPostgres(database.url, (admin) => admin.query('DROP TABLE "A2ATaskEvent"; ALTER TABLE "A2ATask" DROP COLUMN "leaseUntil"'))
    const store = new PostgresStore(database.url, { max: 2 })
    try {
      const error = await rejection(store.ready())
      expect(error).toBeInstanceOf(TaskStoreSchemaError)
      expect((error as TaskStoreSchemaError).missing).toEqual(['A2ATask.leaseUntil', 'A2ATaskEvent'])
      expect((error as Error).message).toMatch(/^PostgresStore: the database lacks A2ATask\.leaseUntil, A2ATaskEvent, .*npm run db:change -- --name <name>.*npm run db:migrate/)
      // Applying the migrations the app has is named first, then making one; neither is told as the only way.
      const text = (error as Error).message
      expect(text).toContain("If the app's prisma/migrations already create them, apply the migrations: npm run db:migrate.")
      expect(text.indexOf('npm run db:migrate')).toBeLessThan(text.indexOf('make a migration'))
      // Even a write issued without awaiting ready(): the same error, no 42P01 from the server.
      expect(await rejection(store.create(makeRecord({ id: 'too-early' })))).toBe(error)
    } finally {
      await store.close()
    }
  })

  it('names every table of a database without any', async () => {
    await onPostgres(database.url, (admin) => admin.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public'))
    const store = new PostgresStore(database.url, { max: 2 })
    try {
      const error = await rejection(store.ready())
      expect((error as TaskStoreSchemaError).missing).toEqual(Object.keys(POSTGRES_STORE_SCHEMA))
    } finally {
      await store.close()
    }
  })
})

describe.each(['sqlite', 'postgres', 'mysql'] as const)('PrismaStore on %s checks the schema before its first statement', (provider) => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openDatabase(provider)
  })
  afterAll(() => database?.close())

  it('opens a fully migrated database, and refuses one without a table', async () => {
    await new PrismaStore(database.db).ready()
    await database.db.$queryRawUnsafe(provider === 'mysql' ? 'DROP TABLE `A2ATaskMessage`' : 'DROP TABLE "A2ATaskMessage"')
    const store = new PrismaStore(database.db)
    const error = await rejection(store.get('any'))
    expect(error).toBeInstanceOf(TaskStoreSchemaError)
    expect((error as TaskStoreSchemaError).missing).toEqual(['A2ATaskMessage'])
    expect(await rejection(store.ready())).toBe(error)
  })
})

describe("PostgresStore's schema check and lost connections", () => {
  let database: TestDatabase
  let proxy: Server
  let cutting = true
  const sockets = new Set<Socket>()
  beforeAll(async () => {
    database = await openDatabase('postgres')
    const target = new URL(database.url)
    // A loopback relay to the server that cuts every connection while `cutting`: a database gone away.
    proxy = createServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      if (cutting) return void socket.destroy()
      const upstream = connect(Number(target.port || 5432), target.hostname)
      socket.pipe(upstream).pipe(socket)
      const end = () => (socket.destroy(), upstream.destroy())
      socket.on('error', end).on('close', end)
      upstream.on('error', end).on('close', end)
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => proxy?.close(resolve))
    await database?.close()
  })

  it('propagates a lost connection as itself, not as a missing schema, and checks again once the database answers', async () => {
    const url = new URL(database.url)
    url.host = `127.0.0.1:${(proxy.address() as { port: number }).port}`
    const store = new PostgresStore(url.href, { max: 2, onConnectionError: () => {} })
    try {
      const error = await rejection(store.ready())
      expect(error).not.toBeInstanceOf(TaskStoreSchemaError)
      expect(isConnectionLoss(error)).toBe(true)
      cutting = false
      await store.ready()
      await store.create(makeRecord({ id: 'reconnected' }))
      expect(await store.get('reconnected')).toMatchObject({ id: 'reconnected' })
    } finally {
      await store.close()
    }
  })
})

describe("PostgresStore's schema check when the server refuses a connection for now", () => {
  let database: TestDatabase
  // A role of this test's own (per-database connection limits spare superusers), dropped after.
  const role = `a2a_limited_${process.pid}_${Date.now()}`
  beforeAll(async () => {
    database = await openDatabase('postgres')
    await onPostgres(database.url, async (admin) => {
      await admin.query(`CREATE ROLE "${role}" LOGIN`)
      await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO "${role}"`)
    })
  })
  afterAll(async () => {
    await database?.close()
    const server = new URL(database.url)
    server.pathname = '/postgres'
    await onPostgres(server.href, (admin) => admin.query(`DROP ROLE IF EXISTS "${role}"`))
  })

  it('answers "too many connections" (53300) as itself, and checks again once a connection is let in', async () => {
    const name = new URL(database.url).pathname.slice(1)
    await onPostgres(database.url, (admin) => admin.query(`ALTER DATABASE "${name}" CONNECTION LIMIT 0`))
    const url = new URL(database.url)
    url.username = role
    const store = new PostgresStore(url.href, { max: 2, onConnectionError: () => {} })
    try {
      const error = await rejection(store.ready())
      expect(error).toMatchObject({ code: '53300' })
      await onPostgres(database.url, (admin) => admin.query(`ALTER DATABASE "${name}" CONNECTION LIMIT -1`))
      await store.ready()
      await store.create(makeRecord({ id: 'let-in' }))
      expect(await store.get('let-in')).toMatchObject({ id: 'let-in' })
    } finally {
      await store.close()
    }
  })
})
