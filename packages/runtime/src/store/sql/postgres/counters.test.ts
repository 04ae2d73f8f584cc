import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { lockWaiters, openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { PostgresStore } from './postgres-store.js'
import { expectTurnCapAcrossReplicas } from '../__fixture__/turn-cap.js'
import { MemoryCounters } from '../../../core/counters.js'
import { PgCounters } from './counters.js'

// Two PostgresStores on one database stand for two replicas: each its own pool, one table.
describe('limit counters on PostgreSQL, shared by replicas', () => {
  let database: TestDatabase
  let replicaA: PostgresStore
  let replicaB: PostgresStore
  beforeAll(async () => {
    database = await openDatabase('postgres')
    replicaA = new PostgresStore(database.url, { max: 4 })
    replicaB = new PostgresStore(database.url, { max: 4 })
  })
  afterAll(async () => {
    await replicaA?.close()
    await replicaB?.close()
    await database?.close()
  })

  it('lets exactly `limit` of many concurrent takes through, from both replicas', async () => {
    const takes = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? replicaA : replicaB).counters.take('turns owner race', `t${i}`, 5, 60_000)))
    expect(takes.filter((take) => take.taken)).toHaveLength(5)
    for (const take of takes) if (!take.taken) expect(take.retryAfterMs).toBeGreaterThan(59_000)
    // A repeated id counts once; a released one frees its place for the other replica.
    const first = takes.findIndex((take) => take.taken)
    expect(await replicaA.counters.take('turns owner race', `t${first}`, 5, 60_000)).toEqual({ taken: true })
    expect((await replicaA.counters.take('turns owner race', 'late', 5, 60_000)).taken).toBe(false)
    await replicaA.counters.release('turns owner race', `t${first}`)
    expect(await replicaB.counters.take('turns owner race', 'late', 5, 60_000)).toEqual({ taken: true })
  })

  it('answers the takes of one turn (one transaction) per key in arrival order, renewing an id already counted', async () => {
    expect(await replicaA.counters.take('runs owner kept', 'old', 2, 60_000)).toEqual({ taken: true })
    // Issued together: one batch over three keys.
    const [oneA, oneB, twoA, twoB, twoC, keptOld, keptNew, keptLate] = await Promise.all([
      replicaA.counters.take('runs owner one', 'a', 1, 60_000),
      replicaA.counters.take('runs owner one', 'b', 1, 60_000),
      replicaA.counters.take('runs owner two', 'a', 2, 30_000),
      replicaA.counters.take('runs owner two', 'b', 2, 30_000),
      replicaA.counters.take('runs owner two', 'c', 2, 30_000),
      replicaA.counters.take('runs owner kept', 'old', 2, 60_000),
      replicaA.counters.take('runs owner kept', 'new', 2, 60_000),
      replicaA.counters.take('runs owner kept', 'late', 2, 60_000),
    ])
    expect([oneA, twoA, twoB, keptOld, keptNew]).toEqual(Array(5).fill({ taken: true }))
    // Refused until the earliest counted entry expires, one this very batch made included.
    for (const [refused, ttl] of [
      [oneB, 60_000],
      [twoC, 30_000],
      [keptLate, 60_000],
    ] as const) {
      expect(refused.taken).toBe(false)
      if (!refused.taken) expect(refused.retryAfterMs).toBeGreaterThan(ttl - 5_000)
      if (!refused.taken) expect(refused.retryAfterMs).toBeLessThanOrEqual(ttl)
    }
    // Released together, in one statement: every place is free again.
    await Promise.all([replicaA.counters.release('runs owner one', 'a'), replicaA.counters.release('runs owner two', 'a'), replicaA.counters.release('runs owner two', 'b')])
    expect(await Promise.all([replicaB.counters.take('runs owner one', 'b', 1, 60_000), replicaB.counters.take('runs owner two', 'c', 2, 60_000)])).toEqual([
      { taken: true },
      { taken: true },
    ])
  })

  it('never deadlocks when two replicas take the same keys in opposite orders at once', async () => {
    const keys = ['quota a', 'quota b', 'quota c', 'quota d']
    // A third session holds one key's lock while both batches start, so each locks what it can
    // and waits there: locked in arrival order, each would then hold a key the other waits for.
    const holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
    try {
      for (const held of keys) {
        await holder.query('BEGIN')
        await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [held])
        const takes = (replica: PostgresStore, order: string[]) => order.map((key) => replica.counters.take(key, `${held}-${replica === replicaA ? 'a' : 'b'}`, 100, 60_000))
        const answered = Promise.all([...takes(replicaA, keys), ...takes(replicaB, [...keys].reverse())])
        await sleep(100)
        await holder.query('COMMIT')
        expect(await answered).toEqual(Array(8).fill({ taken: true }))
      }
    } finally {
      await holder.end()
    }
  })

  it('refuses every take at limit 0 as the memory counters do: nothing counted, so no place ever frees', async () => {
    expect(await replicaA.counters.take('turns owner none', 'a', 0, 60_000)).toEqual({ taken: false, retryAfterMs: Number.POSITIVE_INFINITY })
    expect(await new MemoryCounters().take('turns owner none', 'a', 0, 60_000)).toEqual({ taken: false, retryAfterMs: Number.POSITIVE_INFINITY })
  })

  it('drops expired entries, so the window slides', async () => {
    let clock = Date.parse('2026-12-01T10:00:00Z')
    // The store's executor, on a clock of the test's: what a replica an hour later sees.
    const counters = new PgCounters((replicaA as unknown as { db: ConstructorParameters<typeof PgCounters>[0] }).db, () => clock)
    expect(await counters.take('turns owner slide', 'a', 1, 3_600_000)).toEqual({ taken: true })
    clock += 1_800_000
    expect(await counters.take('turns owner slide', 'b', 1, 3_600_000)).toEqual({ taken: false, retryAfterMs: 1_800_000 })
    clock += 1_800_000
    expect(await counters.take('turns owner slide', 'b', 1, 3_600_000)).toEqual({ taken: true })
  })

  it('takes again on a fresh connection when its connection dies mid-transaction, counting the id once', async () => {
    const lost: Error[] = []
    const store = new PostgresStore(database.url, { max: 2, onConnectionError: (error) => lost.push(error) })
    const key = 'runs owner lost'
    // Another connection holds the key's advisory lock, so the take waits inside its transaction.
    const locker = new pg.Client({ connectionString: database.url })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
      const take = store.counters.take(key, 'x', 2, 60_000)
      const [waiting] = await vi.waitFor(
        async () => {
          const pids = await lockWaiters(database.url)
          expect(pids).toHaveLength(1)
          return pids
        },
        { timeout: 5000 },
      )
      await locker.query('SELECT pg_terminate_backend($1)', [waiting])
      await locker.query('COMMIT')
      expect(await take).toEqual({ taken: true })
      expect(lost.length).toBeGreaterThan(0)
      const { rows } = await locker.query('SELECT "id" FROM "A2ALimitEntry" WHERE "key" = $1', [key])
      expect(rows).toEqual([{ id: 'x' }])
      // No place leaked: one more fits under the limit of 2, the next is refused.
      expect(await store.counters.take(key, 'y', 2, 60_000)).toEqual({ taken: true })
      expect((await store.counters.take(key, 'z', 2, 60_000)).taken).toBe(false)
    } finally {
      await locker.end()
      await store.close()
    }
  })

  it('holds the turn cap across two exchanges on the database', () => expectTurnCapAcrossReplicas(replicaA, replicaB))
})
