/**
 * The MySQL outbox's engine: a claim loop over the outbox table itself, not MysqlJobQueue. Its
 * jobs are a different thing: one kept row per key (a repeated enqueue of a kept key stores
 * nothing), a worker per agent, retries counted per job; a push config's drains need a fresh one
 * per wake-up, in the config's version order, with retries counted on the head row. Here the rows
 * are the queue: each worker looks for due heads (a config's oldest pending row, not leased, past
 * its backoff) and drains that config (drain.ts), whose claim takes the head under its row lock.
 * No wake-up row can be lost with a replica that dies, so the sweep has nothing to find but a
 * lease that lapsed, which the look for due heads meets as well: another replica takes the row
 * once its lease is out, and counts no attempt for the one it lost.
 *
 * This replica's own rows wake its workers at once; others' are found by the look every
 * `pollingIntervalSeconds`.
 * @module
 */
import { randomUUID } from 'node:crypto'
import { PollingPump } from '../../core/polling-pump.js'
import { scrub } from '../../log/logger.js'
import { DeliveryFailed } from './drain.js'
import type { MysqlOutboxRows } from './mysql-outbox-sql.js'
import type { DrainJob, OutboxEngine } from './outbox-seams.js'
import type { RetrySettings } from './outbox.js'

export class MysqlOutboxEngine implements OutboxEngine {
  readonly #rows: MysqlOutboxRows
  readonly #settings: RetrySettings & { pollingIntervalSeconds?: number }
  readonly #log: (line: string) => void
  #drain: ((job: DrainJob) => Promise<void>) | undefined
  #concurrency = 0
  /** The configs this replica drains now, by task and config id: a look never starts a second drain of one. */
  readonly #draining = new Map<string, Promise<void>>()
  #pump: PollingPump | undefined

  constructor(rows: MysqlOutboxRows, settings: RetrySettings & { pollingIntervalSeconds?: number }, log: (line: string) => void) {
    this.#rows = rows
    this.#settings = settings
    this.#log = log
  }

  prepare(): Promise<void> {
    return this.#rows.create()
  }

  async work(drain: (job: DrainJob) => Promise<void>, concurrency: number): Promise<void> {
    this.#drain = drain
    this.#concurrency = concurrency
    this.#pump = new PollingPump(() => this.#look(), (this.#settings.pollingIntervalSeconds ?? 2) * 1000)
    this.#pump.poke()
  }

  /** The rows are in the table already: this replica's workers look at once, the others at their next look. */
  async wake(): Promise<void> {
    this.#pump?.poke()
  }

  async sweep(): Promise<void> {
    this.#pump?.poke()
  }

  async stop(): Promise<void> {
    this.#drain = undefined
    await this.#pump?.stop()
    await Promise.all([...this.#draining.values()])
  }

  /** Starts a drain per due head while workers are free. */
  async #look(): Promise<void> {
    try {
      const free = this.#concurrency - this.#draining.size
      if (free <= 0) return
      // As many more as drain here now: those heads are skipped.
      for (const head of await this.#rows.heads(free + this.#draining.size)) {
        const key = `${head.task_id}\u0000${head.config_id}`
        if (this.#draining.has(key) || this.#draining.size >= this.#concurrency || !this.#drain) continue
        const job: DrainJob = { id: randomUUID(), data: { taskId: head.task_id, configId: head.config_id }, retryCount: head.attempts, retryLimit: this.#settings.maxAttempts - 1 }
        this.#start(key, job, this.#drain)
      }
    } catch (error) {
      this.#log(`a2a: push outbox could not look for rows to deliver: ${scrub(error)}`)
    }
  }

  #start(key: string, job: DrainJob, drain: (job: DrainJob) => Promise<void>): void {
    const running = drain(job).then(
      () => this.#ended(key, true),
      (error: unknown) => {
        // A failed delivery was logged by the drain, and its row waits for its backoff; anything
        // else is news, and the config waits for the next look rather than failing again at once.
        const expected = error instanceof DeliveryFailed
        if (!expected) this.#log(`a2a: push outbox drain of task ${scrub(job.data.taskId, 100)} failed: ${scrub(error)}`)
        this.#ended(key, expected)
      },
    )
    this.#draining.set(key, running)
  }

  #ended(key: string, lookAgain: boolean): void {
    this.#draining.delete(key)
    if (lookAgain) this.#pump?.poke()
  }
}
