import mariadb from 'mariadb'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { T0, makeRecord, nextTask } from '../../conformance-fixtures.js'
import { expectEachReadsTheOther } from '../../prisma/__fixture__/cross-read.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { PrismaStore } from '../../prisma/prisma-store.js'
import type { TaskNote } from '../../store.js'
import { expectTurnCapAcrossReplicas } from '../__fixture__/turn-cap.js'
import type { Executor } from '../executor.js'
import { sql } from '../sql.js'
import { isMysqlConnectionLoss } from './connection-loss.js'
import { killConnections, nowhereUrl } from './__fixture__/cut-pools.js'
import { MysqlStore } from './mysql-store.js'

// MysqlStore beside the app's Prisma client on one MariaDB database, as an app runs them; two
// MysqlStores on it stand for two replicas.

const connectionOf = (url: string) => {
  const parsed = new URL(url)
  return { host: parsed.hostname, port: Number(parsed.port || 3306), user: decodeURIComponent(parsed.username), database: parsed.pathname.slice(1) }
}

describe('MysqlStore and PrismaStore on one MariaDB database', () => {
  let database: TestDatabase
  let direct: MysqlStore
  let other: MysqlStore
  let prisma: PrismaStore
  /** What `direct` heard of its lost connections. */
  const lost: Error[] = []
  const timeZone = process.env.TZ
  beforeAll(async () => {
    database = await openDatabase('mysql')
    direct = new MysqlStore(database.url, { max: 4, onConnectionError: (error) => lost.push(error) })
    other = new MysqlStore(database.url, { max: 4, onConnectionError: () => undefined })
    prisma = new PrismaStore(database.db)
    // Far from UTC: a store that bound or read local times would shift every DateTime.
    process.env.TZ = 'Pacific/Kiritimati'
  })
  afterAll(async () => {
    process.env.TZ = timeZone
    await direct?.close()
    await other?.close()
    await database?.close()
  })

  it("each reads back exactly what the other wrote, and the app's Prisma models read both", () => expectEachReadsTheOther(database, direct, prisma))

  it('survives its connections being killed, telling onConnectionError of each: reads and guarded writes go on', async () => {
    const record = makeRecord({ id: 'cut', state: 'TASK_STATE_WORKING', messageIds: ['c1'] })
    await direct.create(record)
    // Warm the pool: several connections idle when the server kills them all.
    await Promise.all(Array.from({ length: 4 }, () => direct.get('cut')))
    lost.length = 0
    expect(await killConnections(database.url)).toBeGreaterThan(0)
    await expect.poll(() => lost.length).toBeGreaterThan(0)
    expect(lost.every(isMysqlConnectionLoss)).toBe(true)
    expect(await direct.get('cut')).toEqual(record)
    await Promise.all(Array.from({ length: 4 }, () => direct.get('cut')))
    await killConnections(database.url)
    const written = await direct.update('cut', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 9000) })
    expect(written).toMatchObject({ version: 2 })
    expect(await direct.get('cut')).toEqual(written)
    await killConnections(database.url)
    await direct.create(makeRecord({ id: 'after-cut', messageIds: ['c2'] }))
    expect((await direct.findByMessageId('alice', 'c2')).map((r) => r.id)).toEqual(['after-cut'])
  })

  it('tells a lost connection from a failed statement', async () => {
    await expect(direct.create(makeRecord({ id: 'after-cut' }))).rejects.toSatisfy((error) => !isMysqlConnectionLoss(error))
    const victim = await mariadb.createConnection(connectionOf(database.url))
    const [{ id }] = (await victim.query('SELECT CONNECTION_ID() AS id')) as [{ id: number }]
    const lost = victim.query('SELECT SLEEP(5)').catch((error: unknown) => error)
    const killer = await mariadb.createConnection(connectionOf(database.url))
    await killer.query(`KILL CONNECTION ${Number(id)}`)
    await killer.end()
    expect(isMysqlConnectionLoss(await lost)).toBe(true)
    await victim.end().catch(() => undefined)
  })

  it('sends a batch as one transaction, answering its first failure with nothing kept, and goes on', async () => {
    const db = (direct as unknown as { db: Executor }).db
    const entry = sql`INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt") VALUES ('batch', 'kept?', NOW(3), NOW(3))`
    const count = sql`SELECT COUNT(*) AS "n" FROM "A2ALimitEntry" WHERE "key" = 'batch'`
    await expect(db.batchThenRead([entry, sql`SELECT * FROM "NoSuchTable"`, count])).rejects.toThrow('NoSuchTable')
    expect(await db.batchThenRead([sql`SELECT 1`, count])).toEqual([{ n: 0 }])
    expect(await db.batchThenRead([entry, count])).toEqual([{ n: 1 }])
  })

  it('answers each write of a group commit as if alone: a failing one fails only itself', async () => {
    const [a, b] = [makeRecord({ id: 'group-a', messageIds: ['ga'] }), makeRecord({ id: 'group-b', messageIds: ['gb'] })]
    await direct.create(a)
    // One turn: a duplicate insert, a fresh one and a guarded update share a transaction first.
    const outcomes = await Promise.allSettled([direct.create(a), direct.create(b), direct.update('group-a', 1, { task: nextTask(a, 'TASK_STATE_COMPLETED', T0 + 100) })])
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
    expect((await direct.get('group-a'))?.version).toBe(2)
    expect((await direct.findByMessageId('alice', 'gb')).map((r) => r.id)).toEqual(['group-b'])
  })

  it('lets one of two replicas given the same message at once store it: the other creates nothing', async () => {
    const record = makeRecord({ id: 'same-message', messageIds: ['twice'] })
    const outcomes = await Promise.allSettled([direct.createUnlessAccepted(record), other.createUnlessAccepted(record)])
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value === true)).toHaveLength(1)
    expect(await other.createUnlessAccepted({ ...record, id: 'same-message-again' })).toBe(false)
    expect((await direct.findByMessageId('alice', 'twice')).map((r) => r.id)).toEqual(['same-message'])
  })

  it("hears another replica's writes through the change feed, with their events", async () => {
    const notes: TaskNote[] = []
    const stop = other.notifications.listen((note) => notes.push(note))
    try {
      await vi.waitFor(() => expect(notes).toContainEqual({ resync: true }))
      const record = makeRecord({ id: 'fed', state: 'TASK_STATE_WORKING', messageIds: ['f1'] })
      await direct.create(record)
      const event = { statusUpdate: { taskId: 'fed', contextId: record.contextId, status: { state: 'TASK_STATE_COMPLETED' } } }
      const written = await direct.update('fed', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 500), event: event as never })
      await vi.waitFor(() => expect(notes).toContainEqual({ taskId: 'fed', version: 2 }), { timeout: 2000 })
      expect(other.notifications.live).toBe(true)
      expect(await other.eventsSince('fed', 1)).toEqual([{ version: written!.version, response: event }])
      // Each note once, though every read looks back past the newest.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(notes.filter((note) => 'taskId' in note && note.taskId === 'fed')).toHaveLength(1)
    } finally {
      stop()
    }
  })

  it('lets exactly `limit` of many concurrent takes through, from both replicas, and the window slides', async () => {
    const takes = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? direct : other).counters.take('turns owner race', `t${i}`, 5, 60_000)))
    expect(takes.filter((take) => take.taken)).toHaveLength(5)
    for (const take of takes) if (!take.taken) expect(take.retryAfterMs).toBeGreaterThan(59_000)
    const first = takes.findIndex((take) => take.taken)
    expect(await direct.counters.take('turns owner race', `t${first}`, 5, 60_000)).toEqual({ taken: true })
    expect((await direct.counters.take('turns owner race', 'late', 5, 60_000)).taken).toBe(false)
    await direct.counters.release('turns owner race', `t${first}`)
    expect(await other.counters.take('turns owner race', 'late', 5, 60_000)).toEqual({ taken: true })
    expect(await other.counters.take('turns owner none', 'a', 0, 60_000)).toEqual({ taken: false, retryAfterMs: Number.POSITIVE_INFINITY })
  })

  it('holds the turn cap across two exchanges on the database', () => expectTurnCapAcrossReplicas(direct, other))

  it('commits a claim with its task: until then another connection sees neither; a duplicate claim waits, then is refused', async () => {
    const record = makeRecord({ id: 'held', state: 'TASK_STATE_SUBMITTED', messageIds: ['held-m'] })
    const claim = (await direct.claimNewTask!(record, true))!
    expect(claim).toBeDefined()
    expect(await other.findByMessageId('alice', 'held-m')).toEqual([])
    const duplicate = other.claimNewTask!(record, true)
    const done = { ...record, task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 10) }
    expect(await claim.insert(done)).toBe(true)
    expect(await duplicate).toBeUndefined()
    expect((await other.get('held'))?.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect((await other.findByMessageId('alice', 'held-m')).map((r) => r.id)).toEqual(['held'])
    // Released, a claim leaves nothing, and the next one is granted.
    const again = makeRecord({ id: 'released', messageIds: ['released-m'] })
    ;(await direct.claimNewTask!(again, true))!.release()
    expect(await (await other.claimNewTask!(again, true))!.insert(again)).toBe(true)
    expect(await direct.get('released')).toEqual(again)
  })

  it('answers each of a claim group whose commit failed on one insert alone: the others stored, the bad one rejected', async () => {
    const [clash, fine] = [makeRecord({ id: 'clash', messageIds: ['clash-m'] }), makeRecord({ id: 'fine', messageIds: ['fine-m'] })]
    const [clashClaim, fineClaim] = await Promise.all([direct.claimNewTask!(clash, true), direct.claimNewTask!(fine, true)])
    // A task row under the clashing id, with no message row: its insert fails in the group's transaction.
    await other.create(makeRecord({ id: 'clash', owner: 'bob', messageIds: [] }))
    const [clashed, stored] = await Promise.allSettled([clashClaim!.insert(clash), fineClaim!.insert(fine)])
    expect(clashed).toMatchObject({ status: 'rejected', reason: { errno: 1062 } })
    expect(stored).toEqual({ status: 'fulfilled', value: true })
    expect((await direct.get('clash'))!.owner).toBe('bob')
    expect((await direct.findByMessageId('alice', 'fine-m')).map((r) => r.id)).toEqual(['fine'])
    expect(await direct.findByMessageId('alice', 'clash-m')).toEqual([])
  })

  it('names a URL that is not MySQL, without its credentials', () => {
    expect(() => new MysqlStore('postgresql://user:secret@db/app')).toThrow(
      'MysqlStore url must be a mysql:// or mariadb:// URL, e.g. mysql://root@127.0.0.1:3306/invoices; got one starting "postgresql:"',
    )
    expect(() => new MysqlStore('mysql://root@127.0.0.1:3306')).toThrow('MysqlStore needs the database in its URL')
  })
})

it('answers ready() on a server that is not there with an error naming its URL, password hidden, and tells onConnectionError', async () => {
  const url = await nowhereUrl('hunter2')
  const heard: Error[] = []
  const store = new MysqlStore(url, { max: 1, onConnectionError: (error) => heard.push(error) })
  try {
    const started = Date.now()
    const error: Error = await store.ready().then(
      () => expect.fail('ready() resolved with no server'),
      (rejected) => rejected,
    )
    expect(error.message).toMatch(/^MysqlStore could not connect to mysql:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/app: .*ECONNREFUSED.*Check that MySQL or MariaDB is up/)
    expect(error.message).not.toContain('hunter2')
    // One wait of the pool (10 s): a statement is not sent again after a pool that found no connection in time.
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(heard.length).toBeGreaterThan(0)
  } finally {
    await store.close()
  }
}, 20_000)
