import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { lockWaiters, openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'

// The retention trim a settled run triggers is housekeeping: a blocking send is answered without
// waiting for it (on PostgresStore it is a round trip and a commit of its own), while a shutdown
// still waits for it. Its delete is held up for real here, by a row lock another connection takes
// on the task it must trim.

let database: TestDatabase
let store: PostgresStore
let server: TestServer | undefined
let locker: pg.Client | undefined

beforeAll(async () => {
  database = await openDatabase('postgres')
})
afterEach(async () => {
  await locker?.end()
  locker = undefined
  await server?.close()
  server = undefined
  await store?.close()
})
afterAll(() => database?.close())

const done = defineSkill({ id: 'done', description: 'completes at once', handler: (ctx) => ctx.complete('done') })
const held = defineSkill({
  id: 'held',
  description: 'works until the server shuts down',
  handler: (ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())),
})

async function start(): Promise<void> {
  await database.clear()
  store = new PostgresStore(database.url, { max: 4 })
  server = await startTestServer({ skills: [done, held], store, settledTaskRetention: 1, logger: { warn: () => {}, error: () => {} } })
}

const send = async (skill: string) => (await server!.result('SendMessage', { message: userMessage('go', { skill }), configuration: { returnImmediately: skill === 'held' } })).task

/** Locks the task's row from another connection, in a transaction left open. */
async function lockRow(taskId: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  await client.query('BEGIN')
  await client.query('SELECT 1 FROM "A2ATask" WHERE "id" = $1 FOR UPDATE', [taskId])
  return client
}

/** Backends waiting on a lock while running the retention trim. */
const trimsWaiting = async (): Promise<number> => (await lockWaiters(database.url, 'WITH "doomed"')).length

describe('the retention trim after a run settles (PostgresStore)', () => {
  it("does not hold up the blocking send's answer, and lands once its delete can", async () => {
    await start()
    const first = await send('done')
    locker = await lockRow(first.id)
    // Before: the answer waited for the trim, which waits for the lock, which this test holds.
    const second = await send('done')
    expect(second.status.state).toBe('TASK_STATE_COMPLETED')
    expect(await trimsWaiting()).toBe(1)
    expect(await store.get(first.id)).toBeDefined()
    await locker.query('ROLLBACK')
    await vi.waitFor(async () => expect(await store.get(first.id)).toBeUndefined(), { timeout: 5000 })
    expect(await store.get(second.id)).toBeDefined()
  })

  it('is waited for by a shutdown that comes after the run settled on its own', async () => {
    await start()
    const first = await send('done')
    locker = await lockRow(first.id)
    // Answered; its trim of the first task waits on the lock, and no run is live any more.
    await send('done')
    expect(await trimsWaiting()).toBe(1)
    expect(server!.exchange.activeRuns).toBe(0)
    let finished = false
    const shutdown = server!.exchange.shutdown({ timeoutMs: 10_000 }).then(() => (finished = true))
    await sleep(200)
    expect(finished).toBe(false)
    await locker.query('ROLLBACK')
    await shutdown
    expect(await store.get(first.id)).toBeUndefined()
  })

  it('is waited for by a shutdown that settles the run', async () => {
    await start()
    const first = await send('done')
    const running = await send('held')
    locker = await lockRow(first.id)
    let finished = false
    const shutdown = server!.exchange.shutdown({ timeoutMs: 10_000 }).then(() => (finished = true))
    // The cut run is stored CANCELED, and its trim waits on the lock.
    await vi.waitFor(async () => expect(await trimsWaiting()).toBe(1), { timeout: 5000 })
    expect((await store.get(running.id))!.task.status.state).toBe('TASK_STATE_CANCELED')
    await sleep(200)
    expect(finished).toBe(false)
    await locker.query('ROLLBACK')
    await shutdown
    expect(await store.get(first.id)).toBeUndefined()
  })
})
