/**
 * A listening server whose skill `enqueue` hands its work to a job, for the job queues' tests, and
 * the closing after each test they share.
 * @module
 */
import { afterEach } from 'vitest'
import type { Logger } from '../../log/logger.js'
import type { Job } from '../../skills/job.js'
import type { JobQueue } from '../../skills/job-queue.js'
import { defineSkill } from '../../skills/skill.js'
import { MemoryStore } from '../../store/memory-store.js'
import type { Store } from '../../store/store.js'
import { startTestServer, type TestServer } from '../../testing/test-server.js'

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
