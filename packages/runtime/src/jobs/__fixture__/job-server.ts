/**
 * A listening server whose skill `enqueue` hands its work to a job, for the job queues' tests, and
 * the closing after each test they share.
 * @module
 */
import { afterEach, expect, it } from 'vitest'
import { z } from 'zod'
import type { Logger } from '../../log/logger.js'
import { defineJob, type Job } from '../../skills/job.js'
import type { JobQueue } from '../../skills/job-queue.js'
import { defineSkill } from '../../skills/skill.js'
import { MemoryStore } from '../../store/memory-store.js'
import type { Store } from '../../store/store.js'
import { startTestServer, userMessage, type TestServer } from '../../testing/test-server.js'

export const quiet: Logger = { warn: () => {}, error: () => {} }

/** Registers an afterEach that runs the closes given, last first, then `then`; returns the function that takes them. */
export function closeAfterEach(then?: () => Promise<unknown>): (close: () => unknown) => void {
  const open: Array<() => unknown> = []
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close()
    await then?.()
  })
  return (close) => void open.push(close)
}

/** A server whose skill `enqueue` hands its work to the job its text names; with a worker on `queue` unless `worker: false`. */
export async function serveJobs(
  jobs: Job[],
  queue: JobQueue,
  later: (close: () => unknown) => void,
  { store = new MemoryStore(), worker = true }: { store?: Store; worker?: boolean } = {},
): Promise<TestServer> {
  const skill = defineSkill({
    id: 'enqueue',
    description: 'hands its work to the job its text names',
    handler: (ctx) => ctx.enqueue(jobs.find((job) => job.name === ctx.text)!, {}),
  })
  const server = await startTestServer({ skills: [skill], store, jobs: { queue, jobs }, logger: quiet })
  later(() => server.close())
  if (worker) {
    const running = server.exchange.jobWorker({ concurrency: 1, handOverPollMs: 20 })
    await running.start()
    later(() => running.stop())
  }
  return server
}

export const stateOf = async (server: TestServer, id: string) => (await server.result('GetTask', { id })).status

/**
 * A graceful stop of a worker mid-attempt, on each queue: the job is handed back uncounted, so even
 * with no retries its task stays WORKING, and a worker started after runs it as attempt 1 again.
 */
export function handBackCase(queue: () => JobQueue, later: (close: () => unknown) => void, store?: () => Store): void {
  it('a worker stopped mid-attempt hands its job back uncounted: with retries 0 the task stays WORKING and a restarted worker completes it', async () => {
    const started: number[] = []
    let began!: () => void
    const running = new Promise<void>((resolve) => (began = resolve))
    const slow = defineJob({
      name: 'slow',
      input: z.object({}),
      retries: 0,
      backoff: { delayMs: 0 },
      run: async (ctx) => {
        started.push(ctx.attempt)
        if (started.length > 1) return ctx.complete(`done on attempt ${ctx.attempt}`)
        began()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      },
    })
    const server = await serveJobs([slow], queue(), later, { ...(store ? { store: store() } : {}), worker: false })
    const first = server.exchange.jobWorker({ concurrency: 1, handOverPollMs: 20 })
    await first.start()
    const { task } = await server.result('SendMessage', { message: userMessage('slow') })
    await running
    await first.stop()
    expect((await stateOf(server, task.id)).state).toBe('TASK_STATE_WORKING')
    const second = server.exchange.jobWorker({ concurrency: 1, handOverPollMs: 20 })
    await second.start()
    later(() => second.stop())
    await expect.poll(async () => (await stateOf(server, task.id)).message?.parts, { timeout: 15_000 }).toEqual([{ text: 'done on attempt 1' }])
    expect(started).toEqual([1, 1])
  })
}
