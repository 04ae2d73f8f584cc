import mariadb from 'mariadb'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { z } from 'zod'
import type { Logger } from '../log/logger.js'
import { defineSkill } from '../skills/skill.js'
import type { JobSettings, QueuedJob } from '../skills/job-queue.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PrismaStore } from '../store/prisma/prisma-store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { defineJob, type Job } from '../skills/job.js'
import { MysqlJobQueue, mysqlJobId } from './mysql-job-queue.js'

// MysqlJobQueue on a real MariaDB (a database of this file's own), through a listening server and
// through the queue's own interface; two queues on one database stand for two processes.

let database: TestDatabase
const quiet: Logger = { warn: () => {}, error: () => {} }
const open: Array<() => Promise<void>> = []
beforeAll(async () => {
  database = await openDatabase('mysql')
}, 60_000)
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close()
  await query('DROP TABLE IF EXISTS a2a_jobs')
})
afterAll(async () => {
  await database?.close()
})

async function query(sql: string, values: unknown[] = []): Promise<any[]> {
  const connection = await mariadb.createConnection(database.url.replace(/^mysql:/, 'mariadb:'))
  try {
    return await connection.query({ sql, bigIntAsNumber: true }, values)
  } finally {
    await connection.end()
  }
}

function queue(options: { expireGraceMs?: number } = {}): MysqlJobQueue {
  const made = new MysqlJobQueue({ url: database.url, pollingIntervalMs: 20, logger: quiet, ...options })
  open.push(() => made.stop())
  return made
}

async function serve(jobs: Job[], on: MysqlJobQueue): Promise<TestServer> {
  const skill = defineSkill({
    id: 'enqueue',
    description: 'hands its work to the job its text names',
    handler: (ctx) => ctx.enqueue(jobs.find((job) => job.name === ctx.text)!, {}),
  })
  const server = await startTestServer({ skills: [skill], store: new PrismaStore(database.db), jobs: { queue: on, jobs }, logger: quiet })
  open.push(() => server.close())
  const worker = server.exchange.jobWorker({ concurrency: 1, handOverPollMs: 20 })
  await worker.start()
  open.push(() => worker.stop())
  return server
}

const stateOf = async (server: TestServer, id: string) => (await server.result('GetTask', { id })).status
const queued = (key: string): QueuedJob => ({ key, taskId: key, job: 'j', input: {}, messageId: 'm', principal: { owner: 'alice' }, baseUrl: 'http://127.0.0.1' })
const settings: JobSettings = { retries: 0, backoff: { delayMs: 1, exponential: false }, timeoutMs: 1000 }

it('a job that always throws is dead-lettered after its retries, its task FAILED with the reason', async () => {
  let attempts = 0
  const broken = defineJob({
    name: 'broken',
    input: z.object({}),
    retries: 2,
    backoff: { delayMs: 200 },
    run: () => {
      attempts++
      throw new Error('no ledger')
    },
  })
  const jobs = queue()
  const server = await serve([broken], jobs)
  const { task } = await server.result('SendMessage', { message: userMessage('broken') })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  await expect.poll(async () => (await stateOf(server, task.id)).state, { timeout: 10_000 }).toBe('TASK_STATE_FAILED')
  expect((await stateOf(server, task.id)).message.parts).toEqual([{ text: 'job "broken" failed after 3 attempts: no ledger' }])
  expect(attempts).toBe(3)
  expect(await jobs.deadLetters()).toEqual([{ job: expect.objectContaining({ taskId: task.id, job: 'broken' }), reason: 'no ledger', attempts: 3 }])
  const [row] = await query('SELECT state, run_at, worker FROM a2a_jobs')
  expect(row).toEqual({ state: 'dead', run_at: null, worker: null })
})

it('stores one job per key, and refuses a URL that is not MySQL', async () => {
  const jobs = queue()
  await jobs.enqueue(queued('t/m/j'), settings)
  await jobs.enqueue({ ...queued('t/m/j'), input: { again: true } }, settings)
  expect(await query('SELECT id, data FROM a2a_jobs')).toEqual([{ id: mysqlJobId('t/m/j'), data: JSON.stringify(queued('t/m/j')) }])
  const seen: unknown[] = []
  const handle = await jobs.work({ run: async (job) => void seen.push(job.input), dead: async () => {}, concurrency: 2 })
  await expect.poll(() => seen).toEqual([{}])
  await handle.stop()
  expect(await query('SELECT state FROM a2a_jobs')).toEqual([{ state: 'done' }])
  expect(() => new MysqlJobQueue({ url: 'postgresql://root:secret@127.0.0.1/app' })).toThrow(
    'MysqlJobQueue url must be a mysql:// or mariadb:// URL, e.g. mysql://root@127.0.0.1:3306/invoices; got one starting "postgresql:"',
  )
  expect(() => new MysqlJobQueue({})).toThrow("MysqlJobQueue needs pool (a mariadb pool) or url (the app's mysql:// URL")
})

it('a claimed job whose worker vanished is taken again after its timeout and grace, as the next attempt', async () => {
  const first = queue({ expireGraceMs: 300 })
  await first.enqueue(queued('t/m/lost'), { ...settings, retries: 1, timeoutMs: 500 })
  const started: number[] = []
  let release = () => {}
  // The first worker's attempt does not end in time: its process is gone as far as the queue can tell.
  await first.work({ run: (_job, attempt) => (started.push(attempt), new Promise<void>((resolve) => (release = resolve))), dead: async () => {}, concurrency: 1 })
  await expect.poll(() => started).toEqual([1])
  const second = queue({ expireGraceMs: 300 })
  const done: number[] = []
  const at = Date.now()
  const handle = await second.work({ run: async (_job, attempt) => void done.push(attempt), dead: async () => {}, concurrency: 1 })
  open.push(() => handle.stop())
  await expect.poll(() => done, { timeout: 5000 }).toEqual([2])
  // Not before the lease (timeout 500 ms + grace 300 ms, from the first claim) lapsed.
  expect(Date.now() - at).toBeGreaterThanOrEqual(500)
  expect(await query('SELECT state, attempts FROM a2a_jobs')).toEqual([{ state: 'done', attempts: 2 }])
  // The vanished worker's late end finds the job no longer its own: its write changes nothing.
  release()
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(await query('SELECT state, attempts, worker FROM a2a_jobs')).toEqual([{ state: 'done', attempts: 2, worker: null }])
})

it('a vanished worker on the last attempt: the job is dead-lettered with the reason', async () => {
  const first = queue({ expireGraceMs: 200 })
  await first.enqueue(queued('t/m/last'), { ...settings, retries: 0, timeoutMs: 300 })
  let started = 0
  let release = () => {}
  await first.work({ run: () => (started++, new Promise<void>((resolve) => (release = resolve))), dead: async () => {}, concurrency: 1 })
  await expect.poll(() => started).toBe(1)
  const dead: Array<[string, number]> = []
  const handle = await queue({ expireGraceMs: 200 }).work({ run: async () => {}, dead: async (_job, reason, attempts) => void dead.push([reason, attempts]), concurrency: 1 })
  open.push(() => handle.stop())
  await expect.poll(() => dead, { timeout: 5000 }).toEqual([['its worker stopped during the last attempt', 1]])
  await expect.poll(() => query('SELECT state, last_error FROM a2a_jobs')).toEqual([{ state: 'dead', last_error: 'its worker stopped during the last attempt' }])
  release()
})

it('two queues on one database never run one job twice', async () => {
  const [a, b] = [queue(), queue()]
  const keys = Array.from({ length: 60 }, (_, i) => `t${i}/m/j`)
  for (const key of keys) await a.enqueue(queued(key), settings)
  const runs: Array<[string, string]> = []
  const slow = (name: string) => ({
    run: async (job: QueuedJob) => {
      runs.push([name, job.key])
      await new Promise((resolve) => setTimeout(resolve, 5))
    },
    dead: async () => {},
    concurrency: 3,
  })
  const handles = await Promise.all([a.work(slow('a')), b.work(slow('b'))])
  open.push(async () => void (await Promise.all(handles.map((handle) => handle.stop()))))
  await expect.poll(() => runs.length, { timeout: 10_000 }).toBe(60)
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(runs.map(([, key]) => key).sort()).toEqual([...keys].sort())
  // Both took jobs: the claim skips the rows the other is taking instead of waiting on them.
  expect(new Set(runs.map(([name]) => name))).toEqual(new Set(['a', 'b']))
  expect(await query("SELECT COUNT(*) AS n FROM a2a_jobs WHERE state = 'done' AND attempts = 1")).toEqual([{ n: 60 }])
})

it('jobs queued while the worker is full run as its attempts end; stop lets the running one finish', async () => {
  const jobs = queue()
  const ran: string[] = []
  let finished = 0
  const handle = await jobs.work({
    run: async (job) => {
      ran.push(job.key)
      await new Promise((resolve) => setTimeout(resolve, 100))
      finished++
    },
    dead: async () => {},
    concurrency: 1,
  })
  await jobs.enqueue(queued('a/m/j'), settings)
  await expect.poll(() => ran).toEqual(['a/m/j'])
  // The lane is full: these wait for its one attempt, then run one by one.
  await jobs.enqueue(queued('b/m/j'), settings)
  await jobs.enqueue(queued('c/m/j'), settings)
  await expect.poll(() => ran, { timeout: 5000 }).toEqual(['a/m/j', 'b/m/j', 'c/m/j'])
  await handle.stop()
  expect(finished).toBe(3)
  expect(await query("SELECT COUNT(*) AS n FROM a2a_jobs WHERE state = 'done'")).toEqual([{ n: 3 }])
})
