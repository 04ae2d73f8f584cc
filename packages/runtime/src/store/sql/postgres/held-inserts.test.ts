import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { makeRecord } from '../../conformance-fixtures.js'
import { lockWaiters, openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { HeldInserts, type HeldClaim } from './held-inserts.js'
import { isConnectionLoss, type PgPool, type QueryConfig } from './executor.js'
import { guardPool } from './pool.js'
import { PostgresStore } from './postgres-store.js'
import type { TaskRecord } from '../../store.js'

// A new task's claim on its message id and its insert, one transaction held open between them
// (postgres/held-inserts.ts), on real PostgreSQL: what another connection sees meanwhile, a duplicate
// claim from another store, a claim that outlives its wait, a group whose commit fails on one
// insert, and the held connection cut.

let database: TestDatabase
let admin: pg.Client
const stores: PostgresStore[] = []
beforeAll(async () => {
  database = await openDatabase('postgres')
  admin = new pg.Client({ connectionString: database.url })
  await admin.connect()
})
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
  await database.clear()
})
afterAll(async () => {
  await admin?.end()
  await database?.close()
})

const storeOn = () => {
  const store = new PostgresStore(database.url, { max: 4, onConnectionError: () => {} })
  stores.push(store)
  return store
}
const count = async (table: string) => (await admin.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n as number
const messageRows = async () => (await admin.query(`SELECT "taskId" FROM "A2ATaskMessage" ORDER BY "taskId"`)).rows.map((row) => row.taskId as string)
const finished = (record: TaskRecord): TaskRecord => ({ ...record, task: { ...record.task, status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() } } })
const heldBackends = async () =>
  (await admin.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`)).rows.map((row) => row.pid as number)

describe('PostgresStore.claimNewTask', () => {
  it('commits the claim with its insert: until then another connection sees neither, then both', async () => {
    const store = storeOn()
    const record = makeRecord({ id: 'held-1', state: 'TASK_STATE_SUBMITTED' })
    const claim = (await store.claimNewTask!(record, true))!
    expect(claim).toBeDefined()
    expect(await messageRows()).toEqual([])
    expect(await heldBackends()).toHaveLength(1)
    expect(await claim.insert(finished(record))).toBe(true)
    expect(await messageRows()).toEqual(['held-1'])
    expect((await store.get('held-1'))!.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(await store.findByMessageId('alice', 'msg-held-1')).toHaveLength(1)
  })

  it("refuses a message id the owner's tasks hold (unlessAccepted), and only this same task otherwise", async () => {
    const store = storeOn()
    await store.create(makeRecord({ id: 'first', messageIds: ['m'] }))
    expect(await store.claimNewTask!(makeRecord({ id: 'other', messageIds: ['m'] }), true)).toBeUndefined()
    // Another message under a reused id is a new task: only its own id is refused.
    const other = (await store.claimNewTask!(makeRecord({ id: 'other', messageIds: ['m'] }), false))!
    expect(await other.insert(makeRecord({ id: 'other', messageIds: ['m'] }))).toBe(true)
    expect(await store.claimNewTask!(makeRecord({ id: 'other', messageIds: ['m'] }), false)).toBeUndefined()
    expect(await messageRows()).toEqual(['first', 'other'])
  })

  it('makes a duplicate claim from another store wait for the first, refused once it commits and granted once it releases', async () => {
    const [a, b] = [storeOn(), storeOn()]
    const record = makeRecord({ id: 'raced' })
    const first = (await a.claimNewTask!(record, false))!
    const second = b.claimNewTask!(record, false)
    await expect.poll(() => lockWaiters(database.url, 'INSERT INTO "A2ATaskMessage"'), { timeout: 5000 }).toHaveLength(1)
    expect(await first.insert(record)).toBe(true)
    expect(await second).toBeUndefined()

    const again = makeRecord({ id: 'released' })
    const holder = (await a.claimNewTask!(again, false))!
    const waiting = b.claimNewTask!(again, false)
    await expect.poll(() => lockWaiters(database.url, 'INSERT INTO "A2ATaskMessage"'), { timeout: 5000 }).toHaveLength(1)
    holder.release()
    const granted = (await waiting)!
    expect(await granted.insert(again)).toBe(true)
    expect(await messageRows()).toEqual(['raced', 'released'])
  })

  it('answers each of a group whose commit failed on one insert alone: the others are stored, the bad one rejected', async () => {
    const store = storeOn()
    const [clash, fine] = [makeRecord({ id: 'clash' }), makeRecord({ id: 'fine' })]
    // Claimed in one turn: one transaction.
    const [clashClaim, fineClaim] = await Promise.all([store.claimNewTask!(clash, true), store.claimNewTask!(fine, true)])
    expect(await heldBackends()).toHaveLength(1)
    // A task row under the clashing id, with no message row: its insert fails the group's commit.
    await admin.query(
      `INSERT INTO "A2ATask" ("id", "contextId", "owner", "skill", "version", "task", "messageIds", "createdAt", "updatedAt", "statusState", "statusTime")
       VALUES ('clash', 'c', 'bob', 'echo', 1, '{}', '[]', now(), now(), 'TASK_STATE_COMPLETED', now())`,
    )
    const [clashed, stored] = await Promise.allSettled([clashClaim!.insert(clash), fineClaim!.insert(fine)])
    expect(clashed).toMatchObject({ status: 'rejected', reason: { code: '23505' } })
    expect(stored).toEqual({ status: 'fulfilled', value: true })
    expect((await store.get('fine'))!.owner).toBe('alice')
    expect((await store.get('clash'))!.owner).toBe('bob')
    expect(await messageRows()).toEqual(['fine'])
  })

  it('stores the task when the held connection was cut between claim and insert, which rolled the claim back', async () => {
    const store = storeOn()
    const record = makeRecord({ id: 'cut' })
    const claim = (await store.claimNewTask!(record, true))!
    const [held] = await heldBackends()
    await admin.query('SELECT pg_terminate_backend($1)', [held])
    await expect.poll(heldBackends).toEqual([])
    expect(await messageRows()).toEqual([])
    expect(await claim.insert(finished(record))).toBe(true)
    expect((await store.get('cut'))!.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(await messageRows()).toEqual(['cut'])
  })

  it('releases the claim of a task it cannot encode, and rejects as create does', async () => {
    const store = storeOn()
    const record = makeRecord({ id: 'nan' })
    const claim = (await store.claimNewTask!(record, true))!
    const bad = { ...record, task: { ...record.task, metadata: { n: Number.NaN } } }
    await expect(claim.insert(bad)).rejects.toThrow(/NaN/)
    await expect.poll(heldBackends).toEqual([])
    expect(await messageRows()).toEqual([])
    expect(await count('A2ATask')).toBe(0)
  })

  it('takes a task with exactly one message id', async () => {
    await expect(storeOn().claimNewTask!(makeRecord({ id: 'two', messageIds: ['a', 'b'] }), true)).rejects.toThrow('claimNewTask takes a task with one message id, not 2')
  })
})

describe('HeldInserts', () => {
  const asSent = (config: QueryConfig) => config
  const claimOf = (taskId: string) => ({
    claim: { text: `INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId") VALUES ('alice', $1, $1) ON CONFLICT DO NOTHING`, values: [taskId] },
    undo: { text: `DELETE FROM "A2ATaskMessage" WHERE "taskId" = $1`, values: [taskId] },
  })
  const withPool = async (work: (pool: PgPool) => Promise<void>) => {
    const pool = guardPool(new pg.Pool({ connectionString: database.url, max: 2 }), () => {})
    try {
      await work(pool as unknown as PgPool)
    } finally {
      await pool.end()
    }
  }

  it('sends the claims of a group one of whose claims failed (a deadlock PostgreSQL broke, say) again, each alone', async () => {
    await withPool(async (pool) => {
      const held = new HeldInserts<QueryConfig>(pool, isConnectionLoss, asSent)
      const failing = { text: `INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId") VALUES ('alice', $1, NULL)`, values: ['bad'] }
      const [good, bad] = await Promise.allSettled([held.claim(claimOf('good').claim, claimOf('good').undo), held.claim(failing, claimOf('bad').undo)])
      expect(bad).toMatchObject({ status: 'rejected', reason: { code: '23502' } })
      expect(good.status).toBe('fulfilled')
      expect(await (good as PromiseFulfilledResult<HeldClaim<QueryConfig>>).value.insert({ text: 'SELECT 1', values: [] })).toBe(true)
      expect(await messageRows()).toEqual(['good'])
    })
  })

  it("undoes a claim not inserted within its wait in its group's transaction, commits the others, and answers its late insert false", async () => {
    await withPool(async (pool) => {
      const held = new HeldInserts<QueryConfig>(pool, isConnectionLoss, asSent, 200)
      const [slow, quick] = await Promise.all(['slow', 'quick'].map((id) => held.claim(claimOf(id).claim, claimOf(id).undo)))
      const inserted = quick!.insert({ text: `SELECT 1`, values: [] })
      // The group commits once the wait for the slow one ran out, without it.
      expect(await inserted).toBe(true)
      expect(await messageRows()).toEqual(['quick'])
      expect(await slow!.insert({ text: `SELECT 1`, values: [] })).toBe(false)
    })
  })
})
