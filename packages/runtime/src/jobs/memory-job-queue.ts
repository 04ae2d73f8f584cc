/**
 * A job queue in the process's memory: for tests and single-process apps that accept losing
 * queued jobs with the process (their tasks are then failed by the lease sweep once the job's
 * lease lapses). Retries with the job's backoff, no jitter. Done and dead jobs are kept for
 * `keepMs` (their keys hold that long; dead ones are listed by {@link MemoryJobQueue.deadLetters}),
 * then forgotten; a pump looks at waiting jobs only.
 * @module
 */
import { backoffMs } from '../skills/job.js'
import { HandedBack, reasonOf, type JobHandlers, type JobQueue, type JobSettings, type QueuedJob } from '../skills/job-queue.js'

interface Entry {
  job: QueuedJob
  settings: JobSettings
  /** Attempts started so far (a handed-back one uncounted). */
  attempts: number
  dueAt: number
  state: 'waiting' | 'active' | 'done' | 'dead'
  reason?: string
  /** When it went done or dead. */
  settledAt?: number
}

export interface DeadJob {
  job: QueuedJob
  reason: string
  attempts: number
}

export interface MemoryJobQueueOptions {
  /** Done and dead jobs are kept this long (a repeated enqueue of a kept key stores nothing); default 14 days. */
  keepMs?: number
}

type Worker = { handlers: JobHandlers; active: number }

export class MemoryJobQueue implements JobQueue {
  /** Every kept job by key: waiting, active, and done or dead for keepMs. */
  readonly #entries = new Map<string, Entry>()
  /** The jobs a pump looks at. */
  readonly #waiting = new Set<Entry>()
  /** Done and dead jobs in the order they settled, so the oldest are pruned first. */
  readonly #settled = new Set<Entry>()
  #active = 0
  readonly #keepMs: number
  /** The worker of each agent ('' for jobs of no agent), with its attempts under way. */
  readonly #workers = new Map<string, Worker>()
  #timer: NodeJS.Timeout | undefined
  readonly #running = new Set<Promise<void>>()

  constructor(options: MemoryJobQueueOptions = {}) {
    this.#keepMs = options.keepMs ?? 14 * 86_400_000
  }

  async enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    this.#prune()
    if (this.#entries.has(job.key)) return
    // A copy, as a database would keep: the caller's objects may change after.
    const entry: Entry = { job: structuredClone(job), settings, attempts: 0, dueAt: Date.now(), state: 'waiting' }
    this.#entries.set(job.key, entry)
    this.#waiting.add(entry)
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

  /** Jobs past their retries (kept for keepMs), oldest first. */
  deadLetters(): DeadJob[] {
    this.#prune()
    return [...this.#settled].filter((entry) => entry.state === 'dead').map((entry) => ({ job: entry.job, reason: entry.reason!, attempts: entry.attempts }))
  }

  /** Queued or retrying jobs not yet done nor dead. */
  get pending(): number {
    return this.#waiting.size + this.#active
  }

  /** Jobs kept, done and dead ones included (until keepMs after they settled). */
  get size(): number {
    this.#prune()
    return this.#entries.size
  }

  /** Forgets done and dead jobs settled more than keepMs ago; the oldest come first. */
  #prune(): void {
    const before = Date.now() - this.#keepMs
    for (const entry of this.#settled) {
      if (entry.settledAt! >= before) break
      this.#settled.delete(entry)
      this.#entries.delete(entry.job.key)
    }
  }

  #settle(entry: Entry, state: 'done' | 'dead'): void {
    entry.state = state
    entry.settledAt = Date.now()
    this.#settled.add(entry)
  }

  #pump(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const now = Date.now()
    let next = Infinity
    for (const entry of this.#waiting) {
      const worker = this.#workers.get(entry.job.agent ?? '')
      if (!worker) continue
      if (entry.dueAt > now) next = Math.min(next, entry.dueAt)
      else if (worker.active < worker.handlers.concurrency) this.#start(entry, worker)
    }
    if (next !== Infinity) this.#timer = setTimeout(() => this.#pump(), next - now).unref()
  }

  #start(entry: Entry, worker: Worker): void {
    const { handlers } = worker
    this.#waiting.delete(entry)
    entry.state = 'active'
    entry.attempts++
    worker.active++
    this.#active++
    const waitAgain = (dueAt: number) => {
      entry.state = 'waiting'
      entry.dueAt = dueAt
      this.#waiting.add(entry)
    }
    const running = handlers
      .run(entry.job, entry.attempts)
      .then(
        () => this.#settle(entry, 'done'),
        async (error: unknown) => {
          // Its worker stopped: back at once, the attempt uncounted.
          if (error instanceof HandedBack) {
            entry.attempts--
            waitAgain(Date.now())
            return
          }
          if (entry.attempts <= entry.settings.retries) {
            waitAgain(Date.now() + backoffMs(entry.settings, entry.attempts))
            return
          }
          this.#settle(entry, 'dead')
          entry.reason = reasonOf(error)
          await handlers.dead(entry.job, entry.reason, entry.attempts).catch(() => undefined)
        },
      )
      .finally(() => {
        worker.active--
        this.#active--
        this.#running.delete(running)
        this.#prune()
        this.#pump()
      })
    this.#running.add(running)
  }
}
