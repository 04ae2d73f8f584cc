/**
 * What a job queue kept in a database table does the same on every database: one lane per agent
 * claims due jobs while it has room, runs each attempt and writes how it ended (done; waiting
 * again after the job's backoff, exactly, without jitter; dead once the job's task is failed).
 * SqliteJobQueue and MysqlJobQueue hold one each, with a {@link JobTable}: their SQL, clock and
 * transactions.
 * @module
 */
import { randomUUID } from 'node:crypto'
import { PollingPump } from '../core/polling-pump.js'
import { scrub, type Logger } from '../log/logger.js'
import { backoffMs } from '../skills/job.js'
import { HandedBack, reasonOf, type JobHandlers, type JobSettings, type QueuedJob } from '../skills/job-queue.js'
import type { DeadJob } from './memory-job-queue.js'

/** A job's row as a claim reads it. */
export interface JobRow {
  /** The row's key in its table. */
  id: string
  /** The QueuedJob, as JSON. */
  data: string
  retries: number
  delay_ms: number
  /** 1 when the backoff doubles per attempt. */
  exponential: number
  timeout_ms: number
  attempts: number
  state: 'waiting' | 'active' | 'done' | 'dead'
}

/** A claimed job; `dead` says why it is to be dead-lettered instead of run. */
export interface Claim {
  row: JobRow
  dead?: string
}

/** How an attempt ended, for its row; `handedBack`: waiting again, due now, its attempt uncounted (its worker stopped). */
export type Outcome = { state: 'done' } | { state: 'waiting'; pauseMs: number; reason: string } | { state: 'handedBack' } | { state: 'dead'; reason: string }

/** SQLite's driver answers at once, MySQL's over the network: a pass over a lane awaits only the latter. */
type Maybe<T> = T | Promise<T>

/** A database's part: each method is one short statement or transaction on the queue's table. */
export interface JobTable {
  /** Makes the table if missing; enqueue and work await it first. */
  ready?(): Promise<void>
  /** Stores the job unless its key is stored already. */
  insert(job: QueuedJob, settings: JobSettings): Maybe<void>
  /** Deletes done and dead jobs last written more than `keepMs` ago. */
  prune(keepMs: number): Maybe<void>
  /** Takes the agent's next due job for `worker` (see {@link claimOf}); none when nothing is due. */
  claim(agent: string, worker: string, graceMs: number): Maybe<Claim | undefined>
  /** Writes the end of `worker`'s attempt. */
  settle(id: string, worker: string, outcome: Outcome): Maybe<void>
}

export interface TableJobQueueOptions {
  /** How often an idle worker looks for jobs that fell due (or that other processes queued); default 500 ms. */
  pollingIntervalMs?: number
  /** Past an attempt's timeout, how long before a job whose worker stopped is taken again; default 10 s. */
  expireGraceMs?: number
  /** Done and dead jobs are kept this long (a repeated enqueue of a kept key stores nothing); default 14 days. */
  keepMs?: number
  /** How often a working queue deletes the jobs past `keepMs`: as its first worker starts, then at most this often; default 1 hour. */
  pruneIntervalMs?: number
}

/**
 * What a claim does with the due row it read, and until when (from now) it holds it. A row still
 * active is an attempt whose worker stopped: past its retries it is held for the dead-letter write
 * (as an attempt is); any other is leased for its timeout and the grace, as the next attempt.
 */
export function claimOf(row: JobRow, graceMs: number): { claim: Claim; holdMs: number } {
  if (row.state === 'active' && row.attempts > row.retries) return { claim: { row, dead: 'its worker stopped during the last attempt' }, holdMs: graceMs }
  return { claim: { row: { ...row, attempts: row.attempts + 1 } }, holdMs: row.timeout_ms + graceMs }
}

/** What deadLetters() reads of a dead job's row. */
export interface DeadRow {
  data: string
  last_error: string | null
  attempts: number
}

/** A dead row as deadLetters() lists it. */
export const deadJobOf = (row: DeadRow): DeadJob => ({
  job: JSON.parse(row.data) as QueuedJob,
  reason: row.last_error ?? '',
  attempts: row.attempts,
})

/** A worker's lane: its pump looks for due jobs while the lane has room. */
type Lane = { handlers: JobHandlers; active: number; pump: PollingPump }

export class TableJobQueue {
  readonly #table: JobTable
  readonly #options: TableJobQueueOptions
  /** Names the queue in the error of a second worker for one agent, e.g. `SqliteJobQueue runs one worker per agent`. */
  readonly #oneWorker: string
  /** Without one (SQLite), a failed write after an attempt is left for the job to be taken back. */
  readonly #logger: Logger | undefined
  readonly #worker = randomUUID()
  readonly #lanes = new Map<string, Lane>()
  readonly #running = new Set<Promise<void>>()
  /** When this process last pruned the table, by its clock. */
  #prunedAt = Number.NEGATIVE_INFINITY
  #pruning: Promise<void> | undefined

  constructor(table: JobTable, options: TableJobQueueOptions & { oneWorker: string; logger?: Logger }) {
    this.#table = table
    this.#options = options
    this.#oneWorker = options.oneWorker
    this.#logger = options.logger
  }

  async enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    await this.#table.ready?.()
    await this.#table.insert(job, settings)
    this.#lanes.get(job.agent ?? '')?.pump.poke()
  }

  async work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    const agent = handlers.agent ?? ''
    if (this.#lanes.has(agent)) throw new Error(`${this.#oneWorker}${agent ? ` ("${agent}")` : ''}: stop the other first`)
    await this.#table.ready?.()
    const lane: Lane = { handlers, active: 0, pump: new PollingPump(() => this.#pass(agent, lane), this.#options.pollingIntervalMs ?? 500) }
    this.#lanes.set(agent, lane)
    await this.#prune()
    lane.pump.poke()
    return {
      stop: async () => {
        if (this.#lanes.get(agent) === lane) this.#lanes.delete(agent)
        // A claim in flight may still start a job: it runs to its end as the others do.
        await lane.pump.stop()
        await Promise.all([...this.#running])
      },
    }
  }

  /** Stops looking for jobs at once; resolves once the claims and attempts in flight ended. */
  async halt(): Promise<void> {
    const lanes = [...this.#lanes.values()]
    this.#lanes.clear()
    await Promise.all(lanes.map((lane) => lane.pump.stop()))
    await Promise.all([...this.#running])
    await this.#pruning
  }

  /**
   * Deletes the jobs past `keepMs`, unless pruned within `pruneIntervalMs`. Housekeeping: a failure
   * is logged and never stops a worker; a later pass tries again.
   */
  #prune(): Promise<void> | undefined {
    const now = Date.now()
    if (this.#pruning || now - this.#prunedAt < (this.#options.pruneIntervalMs ?? 3_600_000)) return this.#pruning
    this.#prunedAt = now
    const failed = (error: unknown) => void this.#logger?.error(`a2a: job queue: could not delete old jobs: ${scrub(error)}`)
    try {
      const pruned = this.#table.prune(this.#options.keepMs ?? 14 * 86_400_000)
      if (!(pruned instanceof Promise)) return undefined
      this.#pruning = pruned.catch(failed).finally(() => (this.#pruning = undefined))
      return this.#pruning
    } catch (error) {
      failed(error)
      return undefined
    }
  }

  /** A look of the lane's pump: prunes when due, then starts every due job the lane has room for. */
  #pass(agent: string, lane: Lane): Promise<void> | undefined {
    void this.#prune()
    const failed = (error: unknown) => void this.#logger?.error(`a2a: job queue: could not take a job: ${scrub(error)}`)
    try {
      return this.#take(agent, lane)?.catch(failed)
    } catch (error) {
      failed(error)
      return undefined
    }
  }

  /**
   * Claims and starts jobs while the lane has room and due jobs wait. A table that answers at once
   * makes the whole pass now (nothing is then in flight when SqliteJobQueue closes its file); else
   * the pass goes on once each claim is back.
   */
  #take(agent: string, lane: Lane): Promise<void> | undefined {
    while (lane.active < lane.handlers.concurrency && this.#lanes.get(agent) === lane) {
      const claimed = this.#table.claim(agent, this.#worker, this.#options.expireGraceMs ?? 10_000)
      if (claimed instanceof Promise) {
        return claimed.then((claim) => {
          if (!claim) return undefined
          this.#start(lane, claim)
          return this.#take(agent, lane)
        })
      }
      if (!claimed) break
      this.#start(lane, claimed)
    }
    return undefined
  }

  #start(lane: Lane, { row, dead }: Claim): void {
    const job = JSON.parse(row.data) as QueuedJob
    const { handlers } = lane
    lane.active++
    const settle = (outcome: Outcome) => this.#table.settle(row.id, this.#worker, outcome)
    // Marked dead once the task is failed: a failure (or crash) before leaves it to be taken again and retried.
    const deadLetter = async (reason: string) => {
      await handlers.dead(job, reason, row.attempts)
      await settle({ state: 'dead', reason })
    }
    const attempt = dead
      ? deadLetter(dead)
      : handlers.run(job, row.attempts).then(
          () => settle({ state: 'done' }),
          async (error: unknown) => {
            if (error instanceof HandedBack) return settle({ state: 'handedBack' })
            const reason = reasonOf(error)
            if (row.attempts <= row.retries) {
              const pauseMs = backoffMs({ backoff: { delayMs: row.delay_ms, exponential: row.exponential === 1 } }, row.attempts)
              await settle({ state: 'waiting', pauseMs, reason })
              return
            }
            await deadLetter(reason)
          },
        )
    const running = attempt
      .catch((error: unknown) => this.#logger?.error(`a2a: job queue: job ${row.id} of "${job.job}": ${scrub(error)}`))
      .finally(() => {
        lane.active--
        this.#running.delete(running)
        lane.pump.poke()
      })
    this.#running.add(running)
  }
}
