/**
 * ctx.enqueue on PostgresStore with PgBossJobQueue on the same database: the job's row is
 * inserted by the task's WORKING write itself. On a real PostgreSQL (a database of this file's
 * own): the row is the one pg-boss's `send` inserts; a write that loses on the version, or whose
 * connection is cut mid-statement, leaves no job; the normal path queues exactly one job, which
 * the worker runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { z } from 'zod'
import type { Logger } from '../log/logger.js'
import { defineSkill } from '../skills/skill.js'
import { defineJob } from '../skills/job.js'
import type { QueuedJob } from '../skills/job-queue.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { type LockCutter, lockCutter } from '../store/sql/postgres/__fixture__/lock-cutter.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import type { TaskRecord } from '../store/store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { jobId, PgBossJobQueue } from './pg-boss-job-queue.js'

const quiet: Logger = { warn: () => {}, error: () => {} }
let database: TestDatabase
let store: PostgresStore
let queue: PgBossJobQueue
let server: TestServer
let cutter: LockCutter
const ran: string[] = []

const statement = defineJob({
  name: 'statement',
  input: z.object({ month: z.string() }),
  retries: 2,
  backoff: { delayMs: 1500, exponential: true },
  timeoutMs: 30_000,
  run: async (ctx, input) => {
    ran.push(ctx.taskId)
    await ctx.complete(`statement for ${input.month}`)
  },
})
const monthly = defineSkill({ id: 'monthly', description: 'hands the statement to a job', handler: (ctx) => ctx.enqueue(statement, { month: ctx.text }) })
const ask = defineSkill({ id: 'ask', description: 'waits for input', handler: (ctx) => ctx.requireInput('which month?') })

/** A queue whose `enqueue` is refused: here every job must come in by its task's write. */
class RowOnlyQueue extends PgBossJobQueue {
  override enqueue(): Promise<void> {
    throw new Error('enqueue was called: the job should have been inserted by the task write')
  }
}

beforeAll(async () => {
  database = await openDatabase('postgres')
  store = new PostgresStore(database.url, { max: 4 })
  await store.ready()
  queue = new RowOnlyQueue({ connectionString: database.url, pollingIntervalSeconds: 0.5, logger: quiet })
  server = await startTestServer({ skills: [monthly, ask], store, jobs: { queue, jobs: [statement] }, logger: quiet })
  cutter = await lockCutter(database.url)
}, 60_000)
afterAll(async () => {
  await cutter?.end()
  await server?.close()
  await queue?.stop()
  await store?.close()
  await database?.close()
})

const jobRows = async (taskId: string) => (await cutter.admin.query(`SELECT id, name, state, data FROM a2a_jobs.job WHERE data->>'taskId' = $1`, [taskId])).rows
const settings = { retries: statement.retries, backoff: statement.backoff, timeoutMs: statement.timeoutMs }

/** A task paused for input, and the job a hand-off of it would queue. */
async function pausedTask(): Promise<{ record: TaskRecord; queued: QueuedJob }> {
  const { task } = await server.result('SendMessage', { message: userMessage('hello', { skill: 'ask' }) })
  const record = (await store.get(task.id))!
  const messageId = `m-${task.id}`
  const queued: QueuedJob = {
    key: `${task.id}/${messageId}/statement`,
    taskId: task.id,
    job: 'statement',
    input: { month: 'May' },
    messageId,
    principal: { owner: 'alice' },
    baseUrl: 'http://127.0.0.1',
  }
  return { record, queued }
}

/** The WORKING write that hands `record` to `queued`, with its job row. */
async function handOff(record: TaskRecord, queued: QueuedJob, version = record.version) {
  const status = { state: 'TASK_STATE_WORKING' as const, timestamp: new Date().toISOString() }
  const job = await queue.rowOf(queued, settings)
  const event = { statusUpdate: { taskId: record.id, contextId: record.task.contextId, status } }
  return store.update(record.id, version, { task: { ...record.task, status }, lease: { runner: 'a2a-jobs', until: Date.now() + 60_000 }, event, job })
}

it('the normal path queues exactly one job, by the task write, and the worker runs it', async () => {
  const worker = server.exchange.jobWorker({ concurrency: 1, handOverPollMs: 20 })
  await worker.start()
  try {
    const { task } = await server.result('SendMessage', { message: userMessage('March', { skill: 'monthly' }) })
    expect(task.status.state).toBe('TASK_STATE_WORKING')
    await expect.poll(async () => (await server.result('GetTask', { id: task.id })).status.state, { timeout: 15_000, interval: 100 }).not.toBe('TASK_STATE_WORKING')
    expect((await server.result('GetTask', { id: task.id })).status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'statement for March' }] } })
    expect(ran.filter((id) => id === task.id)).toEqual([task.id])
    const rows = await jobRows(task.id)
    expect(rows).toEqual([{ id: expect.any(String), name: 'a2a-jobs', state: 'completed', data: expect.objectContaining({ job: 'statement', input: { month: 'March' } }) }])
    expect(rows[0].id).toBe(jobId(rows[0].data.key))
  } finally {
    await worker.stop()
  }
})

it("inserts the row pg-boss's send inserts for the same job", async () => {
  const { record, queued } = await pausedTask()
  expect(await handOff(record, queued)).toMatchObject({ version: record.version + 1 })
  const sent = { ...queued, key: `${queued.key}-sent` }
  await PgBossJobQueue.prototype.enqueue.call(queue, sent, settings)
  const columns = `name, priority, state, retry_limit, retry_count, retry_delay, retry_backoff, singleton_key, singleton_on, expire_in,
    keep_until - start_after AS kept_for, start_after - created_on AS started_after, output, dead_letter, policy`
  const { rows } = await cutter.admin.query(`SELECT id, ${columns} FROM a2a_jobs.job WHERE id = ANY($1::uuid[]) ORDER BY created_on`, [[jobId(queued.key), jobId(sent.key)]])
  expect(rows.map((row) => row.id)).toEqual([jobId(queued.key), jobId(sent.key)])
  const [written, bySend] = rows.map(({ id, ...row }) => row)
  expect(written).toEqual(bySend)
  expect(written).toMatchObject({ name: 'a2a-jobs', retry_limit: 2, retry_delay: 2, retry_backoff: true, dead_letter: 'a2a-jobs-dead', policy: 'standard' })
})

it('a task write that loses on the version writes no job, and one sent again inserts none more', async () => {
  const { record, queued } = await pausedTask()
  expect(await handOff(record, queued, record.version - 1)).toBeUndefined()
  expect(await jobRows(record.id)).toEqual([])
  expect((await store.get(record.id))!.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
  await handOff(record, queued)
  const moved = (await store.get(record.id))!
  await handOff(moved, queued)
  expect(await jobRows(record.id)).toHaveLength(1)
})

it('a task write whose connection is cut mid-statement (the job insert waiting on a lock) leaves neither the task WORKING nor a job', async () => {
  const { record, queued } = await pausedTask()
  // The job's row is made (and the queues) before the lock, so only the write waits on it.
  await queue.rowOf(queued, settings)
  // The store sends a write cut this way once more: every try is cut until it gives up.
  const { outcome, cuts } = await cutter.cutWhileLocked('a2a_jobs.job', () => handOff(record, queued))
  expect(outcome.status).toBe('rejected')
  expect(cuts).toBeGreaterThanOrEqual(2)
  const stored = (await store.get(record.id))!
  expect([stored.version, stored.task.status.state]).toEqual([record.version, 'TASK_STATE_INPUT_REQUIRED'])
  expect(await jobRows(record.id)).toEqual([])
})

it("a skill's enqueue whose task write is cut fails the task and queues no job", async () => {
  const { outcome, cuts } = await cutter.cutWhileLocked('a2a_jobs.job', () => server.result('SendMessage', { message: userMessage('June', { skill: 'monthly' }) }))
  expect(outcome.status).toBe('fulfilled')
  expect(cuts).toBeGreaterThanOrEqual(2)
  const { task } = (outcome as PromiseFulfilledResult<any>).value
  expect(task.status.state).toBe('TASK_STATE_FAILED')
  expect((await server.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_FAILED')
  expect(await jobRows(task.id)).toEqual([])
})

it('a store on another database writes no job row: the queue is told apart by its database', async () => {
  const other = await openDatabase('postgres')
  const elsewhere = new PostgresStore(other.url, { max: 1 })
  try {
    const { queued } = await pausedTask()
    const row = await queue.rowOf(queued, settings)
    expect(await store.writesJobRow(row)).toBe(true)
    expect(await elsewhere.writesJobRow(row)).toBe(false)
  } finally {
    await elsewhere.close()
    await other.close()
  }
})
