/**
 * A job queue in the process's memory: for tests and single-process apps that accept losing
 * queued jobs with the process (their tasks are then failed by the lease sweep once the job's
 * lease lapses). Retries with the job's backoff, no jitter; dead-lettered jobs are kept for
 * {@link MemoryJobQueue.deadLetters}.
 * @module
 */
import { backoffMs } from '../skills/job.js'
import { reasonOf, type JobHandlers, type JobQueue, type JobSettings, type QueuedJob } from '../skills/job-queue.js'

interface Entry {
  job: QueuedJob
  settings: JobSettings
  /** Attempts started so far. */
  attempts: number
  dueAt: number
  state: 'waiting' | 'active' | 'done' | 'dead'
  reason?: string
}

export interface DeadJob {
  job: QueuedJob
  reason: string
  attempts: number
}

export class MemoryJobQueue implements JobQueue {
  readonly #entries = new Map<string, Entry>()
  /** The worker of each agent ('' for jobs of no agent), with its attempts under way. */
  readonly #workers = new Map<string, { handlers: JobHandlers; active: number }>()
  #timer: NodeJS.Timeout | undefined
  readonly #running = new Set<Promise<void>>()

  async enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    if (this.#entries.has(job.key)) return
    // A copy, as a database would keep: the caller's objects may change after.
    this.#entries.set(job.key, { job: structuredClone(job), settings, attempts: 0, dueAt: Date.now(), state: 'waiting' })
    this.#pump()
  }

  async work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    const agent = handlers.agent ?? ''
    if (this.#workers.has(agent)) throw new Error(`MemoryJobQueue runs one worker per agent${agent ? ` ("${agent}")` : ''}: stop the other first`)
    const worker = { handlers, active: 0 }
    this.#workers.set(agent, worker)
    this.#pump()
    return {
      stop: async () => {
        if (this.#workers.get(agent) === worker) this.#workers.delete(agent)
        await Promise.all([...this.#running])
      },
    }
  }

  /** Jobs past their retries, oldest first. */
  deadLetters(): DeadJob[] {
    return [...this.#entries.values()].filter((entry) => entry.state === 'dead').map((entry) => ({ job: entry.job, reason: entry.reason!, attempts: entry.attempts }))
  }

  /** Queued or retrying jobs not yet done nor dead. */
  get pending(): number {
    return [...this.#entries.values()].filter((entry) => entry.state === 'waiting' || entry.state === 'active').length
  }

  #pump(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const now = Date.now()
    let next = Infinity
    for (const entry of this.#entries.values()) {
      const worker = this.#workers.get(entry.job.agent ?? '')
      if (entry.state !== 'waiting' || !worker) continue
      if (entry.dueAt > now) next = Math.min(next, entry.dueAt)
      else if (worker.active < worker.handlers.concurrency) this.#start(entry, worker)
    }
    if (next !== Infinity) this.#timer = setTimeout(() => this.#pump(), next - now).unref()
  }

  #start(entry: Entry, worker: { handlers: JobHandlers; active: number }): void {
    const { handlers } = worker
    entry.state = 'active'
    entry.attempts++
    worker.active++
    const running = handlers
      .run(entry.job, entry.attempts)
      .then(
        () => {
          entry.state = 'done'
        },
        async (error: unknown) => {
          if (entry.attempts <= entry.settings.retries) {
            entry.state = 'waiting'
            entry.dueAt = Date.now() + backoffMs(entry.settings, entry.attempts)
            return
          }
          entry.state = 'dead'
          entry.reason = reasonOf(error)
          await handlers.dead(entry.job, entry.reason, entry.attempts).catch(() => undefined)
        },
      )
      .finally(() => {
        worker.active--
        this.#running.delete(running)
        this.#pump()
      })
    this.#running.add(running)
  }
}
