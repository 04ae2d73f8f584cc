/**
 * The cases every job queue kept in a table must pass (SqliteJobQueue, MysqlJobQueue), through a
 * listening server and through the queue's own interface; two queues on one table stand for two
 * processes. Each test file gives its database's {@link TableQueueKit}.
 * @module
 */
import { expect, it } from 'vitest'
import { z } from 'zod'
import { defineJob } from '../../skills/job.js'
import type { JobQueue, JobSettings, QueuedJob } from '../../skills/job-queue.js'
import type { Store } from '../../store/store.js'
import { userMessage } from '../../testing/test-server.js'
import type { DeadJob } from '../memory-job-queue.js'
import type { TableJobQueueOptions } from '../table-job-queue.js'
import { handBackCase, serveJobs, stateOf } from './job-server.js'

export type TableQueue = JobQueue & { deadLetters(): DeadJob[] | Promise<DeadJob[]> }

/** A row of the queue's table, every column, its key column as `id`. */
export type TableRow = { id: string; data: string; state: string; attempts: number; worker: string | null; last_error: string | null } & Record<string, unknown>

export interface TableQueueKit {
  /** A new queue on this test's table, polling every 20 ms; closed after the test. */
  queue(options?: TableJobQueueOptions): TableQueue
  /** The store the served tasks live in. */
  store(): Store
  rows(): Promise<TableRow[]>
  /** The row id a job key is stored under. */
  idOf(key: string): string
  /** What a dead job's row holds besides its state and no worker. */
  deadRow?: Record<string, unknown>
  /** Runs `close` after the test (see closeAfterEach). */
  later(close: () => unknown): void
}

export const queued = (key: string): QueuedJob => ({ key, taskId: key, job: 'j', input: {}, messageId: 'm', principal: { owner: 'alice' }, baseUrl: 'http://127.0.0.1' })
export const settings: JobSettings = { retries: 0, backoff: { delayMs: 1, exponential: false }, timeoutMs: 1000 }

export function tableQueueCases(kit: TableQueueKit): void {
  handBackCase(kit.queue, kit.later, kit.store)

  it('a job that always throws is dead-lettered after its retries, its task FAILED with the reason', async () => {
    let attempts = 0
    const broken = defineJob({
      name: 'broken',
      input: z.object({}),
      retries: 2,
      backoff: { delayMs: 100 },
      run: () => {
        attempts++
        throw new Error('no ledger')
      },
    })
    const queue = kit.queue()
    const server = await serveJobs([broken], queue, kit.later, { store: kit.store() })
    const { task } = await server.result('SendMessage', { message: userMessage('broken') })
    expect(task.status.state).toBe('TASK_STATE_WORKING')
    await expect.poll(async () => (await stateOf(server, task.id)).state, { timeout: 10_000 }).toBe('TASK_STATE_FAILED')
    expect((await stateOf(server, task.id)).message.parts).toEqual([{ text: 'job "broken" failed after 3 attempts: no ledger' }])
    expect(attempts).toBe(3)
    expect(await queue.deadLetters()).toEqual([{ job: expect.objectContaining({ taskId: task.id, job: 'broken' }), reason: 'no ledger', attempts: 3 }])
    expect(await kit.rows()).toEqual([expect.objectContaining({ state: 'dead', worker: null, last_error: 'no ledger', ...kit.deadRow })])
  })

  it('stores one job per key', async () => {
    const queue = kit.queue()
    await queue.enqueue(queued('t/m/j'), settings)
    await queue.enqueue({ ...queued('t/m/j'), input: { again: true } }, settings)
    expect((await kit.rows()).map(({ id, data }) => ({ id, data }))).toEqual([{ id: kit.idOf('t/m/j'), data: JSON.stringify(queued('t/m/j')) }])
    const seen: unknown[] = []
    const handle = await queue.work({ run: async (job) => void seen.push(job.input), dead: async () => {}, concurrency: 2 })
    await expect.poll(() => seen).toEqual([{}])
    await handle.stop()
    expect((await kit.rows()).map((row) => row.state)).toEqual(['done'])
  })

  it('a claimed job whose worker vanished is taken again after its timeout and grace, as the next attempt', async () => {
    const first = kit.queue({ expireGraceMs: 300 })
    await first.enqueue(queued('t/m/lost'), { ...settings, retries: 1, timeoutMs: 500 })
    const started: number[] = []
    let release = () => {}
    // The first worker's attempt does not end in time: its process is gone as far as the queue can tell.
    await first.work({ run: (_job, attempt) => (started.push(attempt), new Promise<void>((resolve) => (release = resolve))), dead: async () => {}, concurrency: 1 })
    await expect.poll(() => started).toEqual([1])
    const second = kit.queue({ expireGraceMs: 300 })
    const done: number[] = []
    const at = Date.now()
    const handle = await second.work({ run: async (_job, attempt) => void done.push(attempt), dead: async () => {}, concurrency: 1 })
    kit.later(() => handle.stop())
    await expect.poll(() => done, { timeout: 5000 }).toEqual([2])
    // Not before the lease (timeout 500 ms + grace 300 ms, from the first claim) lapsed.
    expect(Date.now() - at).toBeGreaterThanOrEqual(500)
    expect(await kit.rows()).toEqual([expect.objectContaining({ state: 'done', attempts: 2 })])
    // The vanished worker's late end finds the job no longer its own: its write changes nothing.
    release()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await kit.rows()).toEqual([expect.objectContaining({ state: 'done', attempts: 2, worker: null })])
  })

  it('a vanished worker on the last attempt: the job is dead-lettered with the reason', async () => {
    const first = kit.queue({ expireGraceMs: 200 })
    await first.enqueue(queued('t/m/last'), { ...settings, retries: 0, timeoutMs: 300 })
    let started = 0
    let release = () => {}
    await first.work({ run: () => (started++, new Promise<void>((resolve) => (release = resolve))), dead: async () => {}, concurrency: 1 })
    await expect.poll(() => started).toBe(1)
    const dead: Array<[string, number]> = []
    const handle = await kit.queue({ expireGraceMs: 200 }).work({ run: async () => {}, dead: async (_job, reason, attempts) => void dead.push([reason, attempts]), concurrency: 1 })
    kit.later(() => handle.stop())
    await expect.poll(() => dead, { timeout: 5000 }).toEqual([['its worker stopped during the last attempt', 1]])
    await expect
      .poll(async () => (await kit.rows()).map(({ state, last_error }) => ({ state, last_error })))
      .toEqual([{ state: 'dead', last_error: 'its worker stopped during the last attempt' }])
    release()
  })

  it('a working queue deletes done and dead jobs past keepMs as it starts and every pruneIntervalMs, never a waiting one', async () => {
    const queue = kit.queue({ keepMs: 1500, pruneIntervalMs: 50 })
    await queue.enqueue(queued('t/m/done'), settings)
    await queue.enqueue(queued('t/m/dead'), settings)
    await queue.enqueue(queued('t/m/later'), { ...settings, retries: 1, backoff: { delayMs: 60_000, exponential: false } })
    const handle = await queue.work({
      run: async (job) => {
        if (job.key !== 't/m/done') throw new Error('no ledger')
      },
      dead: async () => {},
      concurrency: 3,
    })
    kit.later(() => handle.stop())
    const states = async () => Object.fromEntries((await kit.rows()).map((row) => [JSON.parse(row.data).key, row.state]))
    // Kept for keepMs after they settled (a prune ran meanwhile, as the worker started)...
    await expect.poll(states, { timeout: 5000 }).toEqual({ 't/m/done': 'done', 't/m/dead': 'dead', 't/m/later': 'waiting' })
    // ...then deleted by the running worker; the job waiting on its backoff stays.
    await expect.poll(states, { timeout: 5000 }).toEqual({ 't/m/later': 'waiting' })
  })

  it('two queues on one table never run one job twice', async () => {
    const [a, b] = [kit.queue(), kit.queue()]
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
    kit.later(async () => void (await Promise.all(handles.map((handle) => handle.stop()))))
    await expect.poll(() => runs.length, { timeout: 10_000 }).toBe(60)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(runs.map(([, key]) => key).sort()).toEqual([...keys].sort())
    // Both took jobs: a claim skips the rows the other is taking instead of waiting on them.
    expect(new Set(runs.map(([name]) => name))).toEqual(new Set(['a', 'b']))
    expect((await kit.rows()).filter((row) => row.state === 'done' && row.attempts === 1)).toHaveLength(60)
  })

  it('jobs queued while the worker is full run as its attempts end; stop lets the running one finish', async () => {
    const queue = kit.queue()
    const ran: string[] = []
    let finished = 0
    const handle = await queue.work({
      run: async (job) => {
        ran.push(job.key)
        await new Promise((resolve) => setTimeout(resolve, 100))
        finished++
      },
      dead: async () => {},
      concurrency: 1,
    })
    await queue.enqueue(queued('a/m/j'), settings)
    await expect.poll(() => ran).toEqual(['a/m/j'])
    // The lane is full: these wait for its one attempt, then run one by one.
    await queue.enqueue(queued('b/m/j'), settings)
    await queue.enqueue(queued('c/m/j'), settings)
    await expect.poll(() => ran, { timeout: 5000 }).toEqual(['a/m/j', 'b/m/j', 'c/m/j'])
    await handle.stop()
    expect(finished).toBe(3)
    expect((await kit.rows()).map((row) => row.state)).toEqual(['done', 'done', 'done'])
  })
}
