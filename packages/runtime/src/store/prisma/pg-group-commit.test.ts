import pg from 'pg'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { T0, makeRecord, nextTask } from '../conformance-fixtures.js'
import { openDatabase, type TestDatabase } from './__fixture__/databases.js'
import { PostgresStore } from './postgres-store.js'

// PostgresStore's group commit on its lanes (pg-group-commit.ts), against the real server.

let database: TestDatabase
const stores: PostgresStore[] = []
beforeAll(async () => {
  database = await openDatabase('postgres')
})
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()))
})
afterAll(async () => {
  await database?.close()
})

const open = (max: number) => {
  const store = new PostgresStore(database.url, { max })
  stores.push(store)
  return store
}

/** Counts the BEGINs pg's clients send while `work` runs: one per group-commit transaction. */
async function transactionsDuring(work: () => Promise<unknown>): Promise<number> {
  const query = pg.Client.prototype.query
  let begun = 0
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if ((args[0] as { text?: string }).text === 'BEGIN') begun++
    return (query as (...args: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    await work()
    return begun
  } finally {
    pg.Client.prototype.query = query
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

it('a write blocked on a row lock holds up no other: the next turns\' writes commit meanwhile', async () => {
  const store = open(4)
  const held = makeRecord({ id: 'held', state: 'TASK_STATE_WORKING' })
  await store.create(held)
  // Another session holds the row, so the update below waits on its lock.
  const locker = new pg.Client({ connectionString: database.url })
  await locker.connect()
  await locker.query(`BEGIN; SELECT 1 FROM "A2ATask" WHERE "id" = 'held' FOR UPDATE`)
  const begun = await transactionsDuring(async () => {
    const update = store.update('held', 1, { task: nextTask(held, 'TASK_STATE_COMPLETED', T0 + 1000) })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const writes: Promise<void>[] = []
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 5; i++) writes.push(store.create(makeRecord({ id: `turns-${batch}-${i}` })))
      await turn()
    }
    // Committed while the lock is still held.
    await Promise.all(writes)
    await locker.query('COMMIT')
    expect(await update).toMatchObject({ version: 2 })
  }).finally(() => locker.end())
  // The update alone (no BEGIN); the creates in at most one transaction per turn.
  expect(begun).toBeGreaterThanOrEqual(1)
  expect(begun).toBeLessThanOrEqual(3)
  for (let batch = 0; batch < 3; batch++) expect(await store.get(`turns-${batch}-4`)).toMatchObject({ id: `turns-${batch}-4` })
})

it('a failed write of a group fails alone: the others of its transaction are committed', async () => {
  const store = open(4)
  await store.create(makeRecord({ id: 'taken' }))
  const outcomes = await Promise.allSettled([
    store.create(makeRecord({ id: 'group-a' })),
    store.create(makeRecord({ id: 'taken' })),
    store.create(makeRecord({ id: 'group-b' })),
  ])
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect((await Promise.all(['group-a', 'group-b'].map((id) => store.get(id)))).map((record) => record?.id)).toEqual(['group-a', 'group-b'])
})

it('a pool of one keeps no lane: writes, reads and transactions share its connection', async () => {
  const store = open(1)
  const record = makeRecord({ id: 'one-connection', state: 'TASK_STATE_WORKING', messageIds: ['one-1'] })
  await store.create(record)
  const [read, written] = await Promise.all([
    store.get('one-connection'),
    // New message ids: the read, write and re-index transaction, on the pool.
    store.update('one-connection', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000), messageIds: ['one-1', 'one-2'] }),
  ])
  expect(read?.id).toBe('one-connection')
  expect(written).toMatchObject({ version: 2, messageIds: ['one-1', 'one-2'] })
  expect((await store.findByMessageId('alice', 'one-2')).map((found) => found.id)).toEqual(['one-connection'])
})
