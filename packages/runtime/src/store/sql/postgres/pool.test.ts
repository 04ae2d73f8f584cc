import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PrismaClient } from '../../prisma/__fixture__/postgres/generated/client/client.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { makeRecord } from '../../conformance-fixtures.js'
import { DEFAULT_POOL_SIZE, postgresPoolSize } from './pool.js'
import { PrismaStore } from '../../prisma/prisma-store.js'

describe('postgresPoolSize', () => {
  it('reads DATABASE_POOL_SIZE, defaulting when unset or blank', () => {
    expect(postgresPoolSize({})).toBe(DEFAULT_POOL_SIZE)
    expect(postgresPoolSize({ DATABASE_POOL_SIZE: ' ' })).toBe(DEFAULT_POOL_SIZE)
    expect(postgresPoolSize({ DATABASE_POOL_SIZE: '25' })).toBe(25)
    expect(postgresPoolSize({ DATABASE_POOL_SIZE: ' 1 ' })).toBe(1)
  })

  it('refuses what is not a whole number from 1 to 1000, naming the variable and the default', () => {
    for (const value of ['0', '-3', '2.5', '1e2', 'ten', '1001', '0x10']) {
      expect(() => postgresPoolSize({ DATABASE_POOL_SIZE: value }), value).toThrow(
        `DATABASE_POOL_SIZE must be a whole number of connections from 1 to 1000, got ${JSON.stringify(value)}; unset it for the default of 10`,
      )
    }
  })
})

describe('a PostgreSQL client with postgresPoolSize', () => {
  let database: TestDatabase
  let pooled: PrismaClient
  beforeAll(async () => {
    database = await openDatabase('postgres')
    pooled = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: postgresPoolSize({ DATABASE_POOL_SIZE: '2' }) }) })
  })
  afterAll(async () => {
    await pooled?.$disconnect()
    await database?.close()
  })

  it('opens at most that many connections, however many queries wait', async () => {
    await pooled.$queryRawUnsafe('SELECT 1 AS ready')
    // Promise.all starts them: a Prisma query is sent when awaited, not when called.
    const sleeping = Promise.all(Array.from({ length: 6 }, () => pooled.$queryRawUnsafe('SELECT 1 AS slept FROM pg_sleep(0.5)')))
    // The most sleeping queries the server saw running at once, polled while they wait in line.
    let most = 0
    for (let poll = 0; poll < 16; poll++) {
      const [seen] = (await database.db.$queryRawUnsafe(
        `SELECT count(*)::int AS running FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%pg_sleep%'`,
      )) as { running: number }[]
      most = Math.max(most, seen?.running ?? 0)
      await sleep(50)
    }
    await sleeping
    expect(most).toBe(2)
  })
})

describe('PrismaStore with its tables outside the public schema', () => {
  let database: TestDatabase
  let inSchema: PrismaClient
  beforeAll(async () => {
    database = await openDatabase('postgres')
    const setup = new pg.Client({ connectionString: database.url })
    await setup.connect()
    await setup.query('CREATE SCHEMA tenant_a; SET search_path TO tenant_a')
    await setup.query(await readFile(new URL('../../prisma/__fixture__/postgres/generated/schema.sql', import.meta.url), 'utf8'))
    await setup.end()
    // Prisma's `schema` option qualifies model queries; the store's SQL follows the search_path.
    const url = new URL(database.url)
    url.searchParams.set('options', '-c search_path=tenant_a')
    inSchema = new PrismaClient({ adapter: new PrismaPg({ connectionString: url.href }, { schema: 'tenant_a' }) })
  })
  afterAll(async () => {
    await inSchema?.$disconnect()
    await database?.close()
  })

  it("reads and writes that schema when the connection's search_path names it", async () => {
    const store = new PrismaStore(inSchema)
    await store.create(makeRecord({ id: 'elsewhere' }))
    expect((await store.get('elsewhere'))?.id).toBe('elsewhere')
    expect(await inSchema.a2ATask.count()).toBe(1)
    expect(await database.db.a2ATask.count({})).toBe(0)
  })
})
