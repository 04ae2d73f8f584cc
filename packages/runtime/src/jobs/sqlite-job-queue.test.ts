import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import type { Logger } from '../log/logger.js'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { defineJob, type Job } from '../skills/job.js'
import { SqliteJobQueue } from './sqlite-job-queue.js'

// SqliteJobQueue on a real SQLite file of this test's own, through a listening server.

const dir = mkdtempSync(join(tmpdir(), 'a2a-jobs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const quiet: Logger = { warn: () => {}, error: () => {} }
const open: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close()
})
let files = 0

function queueOn(file: string): SqliteJobQueue {
  const queue = new SqliteJobQueue({ file, pollingIntervalMs: 20 })
  open.push(() => queue.close())
  return queue
}

async function serve(jobs: Job[], queue: SqliteJobQueue, store = new MemoryStore()): Promise<TestServer> {
  const skill = defineSkill({
    id: 'enqueue',
    description: 'hands its work to the job its text names',
    handler: (ctx) => ctx.enqueue(jobs.find((job) => job.name === ctx.text)!, {}),
  })
  const server = await startTestServer({ skills: [skill], store, jobs: { queue, jobs }, logger: quiet })
  open.push(() => server.close())
  return server
}

const stateOf = async (server: TestServer, id: string) => (await server.result('GetTask', { id })).status

it('a queued job outlives its queue: a queue opened again on the file runs it', async () => {
  const file = join(dir, `${++files}.jobs.db`)
  const store = new MemoryStore()
  const done = defineJob({ name: 'done', input: z.object({}), run: (ctx) => ctx.complete(`done on attempt ${ctx.attempt}`) })
  const first = queueOn(file)
  const before = await serve([done], first, store)
  const { task } = await before.result('SendMessage', { message: userMessage('done') })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  await before.close()
  first.close()
  // No worker ran it; a new process (here: a new exchange and queue on the same store and file) does.
  const after = await serve([done], queueOn(file), store)
  const worker = after.exchange.jobWorker({ handOverPollMs: 10 })
  await worker.start()
  open.push(() => worker.stop())
  await expect.poll(async () => (await stateOf(after, task.id)).message?.parts).toEqual([{ text: 'done on attempt 1' }])
})

it('a job that always throws is dead-lettered after its retries, its task FAILED with the reason', async () => {
  const queue = queueOn(join(dir, `${++files}.jobs.db`))
  let attempts = 0
  const broken = defineJob({
    name: 'broken',
    input: z.object({}),
    retries: 2,
    backoff: { delayMs: 20 },
    run: () => {
      attempts++
      throw new Error('no ledger')
    },
  })
  const server = await serve([broken], queue)
  const worker = server.exchange.jobWorker({ handOverPollMs: 10 })
  await worker.start()
  open.push(() => worker.stop())
  const { task } = await server.result('SendMessage', { message: userMessage('broken') })
  await expect.poll(async () => (await stateOf(server, task.id)).state).toBe('TASK_STATE_FAILED')
  expect((await stateOf(server, task.id)).message.parts).toEqual([{ text: 'job "broken" failed after 3 attempts: no ledger' }])
  expect(attempts).toBe(3)
  expect(queue.deadLetters()).toEqual([{ job: expect.objectContaining({ taskId: task.id, job: 'broken' }), reason: 'no ledger', attempts: 3 }])
})

it('stores one job per key, and refuses an in-memory file', async () => {
  const queue = queueOn(join(dir, `${++files}.jobs.db`))
  const queued = { key: 't/m/j', taskId: 't', job: 'j', input: {}, messageId: 'm', principal: { owner: 'alice' }, baseUrl: 'http://127.0.0.1' }
  const settings = { retries: 0, backoff: { delayMs: 1, exponential: false }, timeoutMs: 1000 }
  await queue.enqueue(queued, settings)
  await queue.enqueue({ ...queued, input: { again: true } }, settings)
  const seen: unknown[] = []
  const handle = await queue.work({ run: async (job) => void seen.push(job.input), dead: async () => {}, concurrency: 2 })
  await expect.poll(() => seen).toEqual([{}])
  await handle.stop()
  expect(() => new SqliteJobQueue({ file: ':memory:' })).toThrow('SqliteJobQueue needs a file, not ":memory:": its jobs must outlive the process (use MemoryJobQueue otherwise)')
})
