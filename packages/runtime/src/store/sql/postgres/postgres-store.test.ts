import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { T0, makeRecord, nextTask } from '../../conformance-fixtures.js'
import { expectEachReadsTheOther } from '../../prisma/__fixture__/cross-read.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { isConnectionLoss } from './executor.js'
import { PostgresStore } from './postgres-store.js'
import { PrismaStore } from '../../prisma/prisma-store.js'
import type { Executor } from '../executor.js'
import { sql } from '../sql.js'

// PostgresStore beside the app's Prisma client on one PostgreSQL database, as an app runs them.

/** Terminates every backend of the database but the admin's own: what a failover does to a pool. */
async function terminateBackends(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    const { rows } = await admin.query(`SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
    return rows[0].cut as number
  } finally {
    await admin.end()
  }
}

describe('PostgresStore and PrismaStore on one PostgreSQL database', () => {
  let database: TestDatabase
  let direct: PostgresStore
  let prisma: PrismaStore
  const timeZone = process.env.TZ
  beforeAll(async () => {
    database = await openDatabase('postgres')
    direct = new PostgresStore(database.url, { max: 4 })
    prisma = new PrismaStore(database.db)
    // Far from UTC: a store that bound or read local times would shift every DateTime.
    process.env.TZ = 'Pacific/Kiritimati'
  })
  afterAll(async () => {
    process.env.TZ = timeZone
    await direct?.close()
    await database?.close()
  })

  it("each reads back exactly what the other wrote, and the app's Prisma models read both", () => expectEachReadsTheOther(database, direct, prisma))

  it('survives its connections being terminated: no error event escapes, reads and guarded writes go on', async () => {
    const record = makeRecord({ id: 'cut', state: 'TASK_STATE_WORKING', messageIds: ['c1'] })
    await direct.create(record)
    // Warm the pool: several connections idle when the server cuts them all.
    await Promise.all(Array.from({ length: 4 }, () => direct.get('cut')))
    expect(await terminateBackends(database.url)).toBeGreaterThan(0)
    expect(await direct.get('cut')).toEqual(record)
    await Promise.all(Array.from({ length: 4 }, () => direct.get('cut')))
    expect(await terminateBackends(database.url)).toBeGreaterThan(0)
    const written = await direct.update('cut', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 9000) })
    expect(written).toMatchObject({ version: 2 })
    expect(await direct.get('cut')).toEqual(written)
    await terminateBackends(database.url)
    await direct.create(makeRecord({ id: 'after-cut', messageIds: ['c2'] }))
    expect((await direct.findByMessageId('alice', 'c2')).map((r) => r.id)).toEqual(['after-cut'])
  })

  it('tells a lost connection from a failed statement', async () => {
    await expect(direct.create(makeRecord({ id: 'after-cut' }))).rejects.toSatisfy((error) => !isConnectionLoss(error))
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    client.on('error', () => {})
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid')
    const killer = new pg.Client({ connectionString: database.url })
    await killer.connect()
    const lost = client.query('SELECT pg_sleep(5)').catch((error: unknown) => error)
    await killer.query('SELECT pg_terminate_backend($1)', [rows[0].pid])
    await killer.end()
    expect(isConnectionLoss(await lost)).toBe(true)
    await client.end().catch(() => {})
  })

  it('sends a batch as one transaction, answering its first failure with nothing kept, and goes on', async () => {
    const db = (direct as unknown as { db: Executor }).db
    const entry = sql`INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt") VALUES ('batch', 'kept?', now(), now())`
    const count = sql`SELECT count(*)::int AS "n" FROM "A2ALimitEntry" WHERE "key" = 'batch'`
    await expect(db.batchThenRead([entry, sql`SELECT 1 / 0`, count])).rejects.toThrow('division by zero')
    expect(await db.batchThenRead([sql`SELECT 1`, count])).toEqual([{ n: 0 }])
    expect(await db.batchThenRead([entry, count])).toEqual([{ n: 1 }])
  })

  it("writes a batch's BEGIN, statements and COMMIT before the first answer comes back: one round trip", async () => {
    const db = (direct as unknown as { db: Executor }).db
    const seen: string[] = []
    const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => Promise<unknown>
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = (args[0] as { text: string }).text
      seen.push(`sent ${text}`)
      return query.apply(this, args).then((result) => (seen.push(`answered ${text}`), result))
    } as typeof pg.Client.prototype.query
    try {
      await db.batchThenRead([sql`SELECT 1 AS "one"`, sql`SELECT 2 AS "two"`])
    } finally {
      pg.Client.prototype.query = query as typeof pg.Client.prototype.query
    }
    const trip = seen.slice(seen.indexOf('sent BEGIN'))
    expect(trip.slice(0, 4)).toEqual(['sent BEGIN', 'sent SELECT 1 AS "one"', 'sent SELECT 2 AS "two"', 'sent COMMIT'])
  })

  it('names a URL that is not PostgreSQL, without its credentials', () => {
    expect(() => new PostgresStore('mysql://user:secret@db/app')).toThrow('PostgresStore needs a postgresql:// URL, not "mysql://…@db/app"')
  })
})
