import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { z } from 'zod'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { userMessage, type TestServer } from '../testing/test-server.js'
import { defineJob, type Job } from '../skills/job.js'
import { closeAfterEach, handBackCase, quiet, serveJobs, stateOf } from './__fixture__/job-server.js'
import { jobId, PgBossJobQueue } from './pg-boss-job-queue.js'

// PgBossJobQueue on a real PostgreSQL (a database of this file's own), through a listening server.

let database: TestDatabase
const later = closeAfterEach()
beforeAll(async () => {
  database = await openDatabase('postgres')
}, 60_000)
afterAll(async () => {
  await database?.close()
})

function queueOf(): PgBossJobQueue {
  const queue = new PgBossJobQueue({ connectionString: database.url, pollingIntervalSeconds: 0.5, logger: quiet })
  later(() => queue.stop())
  return queue
}

function storeOf(): PostgresStore {
  const store = new PostgresStore(database.url, { max: 4 })
  later(() => store.close())
  return store
}

async function serve(jobs: Job[]): Promise<{ server: TestServer; queue: PgBossJobQueue }> {
  const queue = queueOf()
  return { server: await serveJobs(jobs, queue, later, { store: storeOf() }), queue }
}

it('a job that always throws is dead-lettered after its retries and its task FAILED with the reason', async () => {
  let attempts = 0
  const broken = defineJob({
    name: 'broken',
    input: z.object({}),
    retries: 1,
    backoff: { delayMs: 1000, exponential: false },
    run: () => {
      attempts++
      throw new Error('the ledger is unreachable')
    },
  })
  const { server } = await serve([broken])
  const { task } = await server.result('SendMessage', { message: userMessage('broken') })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  await expect.poll(async () => (await stateOf(server, task.id)).state, { timeout: 15_000, interval: 100 }).toBe('TASK_STATE_FAILED')
  expect((await stateOf(server, task.id)).message.parts).toEqual([{ text: 'job "broken" failed after 2 attempts: the ledger is unreachable' }])
  expect(attempts).toBe(2)
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    const { rows } = await client.query(`SELECT name, state FROM a2a_jobs.job ORDER BY created_on`)
    expect(rows).toEqual([
      { name: 'a2a-jobs', state: 'failed' },
      { name: 'a2a-jobs-dead', state: 'completed' },
    ])
  } finally {
    await client.end()
  }
})

it('an enqueue of the same key stores one job', async () => {
  const queue = new PgBossJobQueue({ connectionString: database.url, schema: 'a2a_jobs_keys', logger: quiet })
  later(() => queue.stop())
  const queued = { key: 't1/m1/statement', taskId: 't1', job: 'statement', input: {}, messageId: 'm1', principal: { owner: 'alice' }, baseUrl: 'http://127.0.0.1' }
  const settings = { retries: 0, backoff: { delayMs: 1000, exponential: false }, timeoutMs: 1000 }
  await queue.enqueue(queued, settings)
  await queue.enqueue({ ...queued, input: { again: true } }, settings)
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    const { rows } = await client.query(`SELECT id, data FROM a2a_jobs_keys.job`)
    expect(rows).toEqual([{ id: jobId('t1/m1/statement'), data: queued }])
  } finally {
    await client.end()
  }
  expect(() => new PgBossJobQueue({ schema: 'Bad-Schema', connectionString: database.url })).toThrow(
    'PgBossJobQueue schema "Bad-Schema" must be a lower-case SQL identifier like a2a_jobs',
  )
})

handBackCase(queueOf, later, storeOf)
