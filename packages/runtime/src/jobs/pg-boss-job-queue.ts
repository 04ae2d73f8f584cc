/**
 * Jobs on PostgreSQL through pg-boss (the line the push outbox uses): a job is a pg-boss job
 * whose id is derived from its key, so a second enqueue of the same key inserts nothing. pg-boss
 * retries a thrown attempt with the job's backoff (doubled, with jitter, in whole seconds), takes
 * back the job of a worker that went silent (killed, or cut off from the database) once the
 * attempt's timeout and a grace have passed, and moves a job past its retries to a dead-letter
 * queue, where this queue's worker fails its task with the reason. A job a stopping worker hands
 * back (HandedBack) is failed uncounted: retried after its backoff, with the same attempt number.
 * @module
 */
import { createHash } from 'node:crypto'
import PgBoss from 'pg-boss'
import pg from 'pg'
import { createQueueOnce } from '../core/pg-boss-queue.js'
import { consoleLogger, scrub, type Logger } from '../log/logger.js'
import type { PgBossJobRow } from '../store/job-row.js'
import { databaseIdentity } from '../store/sql/postgres/job-rows.js'
import { HandedBack, reasonOf, type JobHandlers, type JobQueue, type JobSettings, type QueuedJob } from '../skills/job-queue.js'

export interface PgBossJobQueueOptions {
  /** A pool the queue shares (it adds an `error` listener); or give `connectionString`. */
  pool?: pg.Pool
  /** For a pool of the queue's own (closed by stop()). */
  connectionString?: string
  /** The schema of pg-boss's tables; default `a2a_jobs`. Created on start. */
  schema?: string
  /** How often idle workers look for jobs other processes queued; default 2 s. */
  pollingIntervalSeconds?: number
  /** How often a silent worker's job is looked for (and taken back); default 60 s. */
  maintenanceIntervalSeconds?: number
  /** Past an attempt's timeout, how long its worker may stay silent before the job is retried elsewhere; default 10 s. */
  expireGraceSeconds?: number
  logger?: Logger
}

/** The queue and the dead-letter queue of an agent's jobs (each hosted agent has its own, and its own worker). */
const queuesOf = (agent: string | undefined) =>
  agent === undefined ? { queue: 'a2a-jobs', dead: 'a2a-jobs-dead' } : { queue: `a2a-jobs-${agent}`, dead: `a2a-jobs-dead-${agent}` }
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/
/** pg-boss 10 refuses a job that expires past this (its attorney.js). */
const MAX_EXPIRATION_HOURS = 24

/** A UUID made from the key: pg-boss's insert skips a job whose id it holds. */
export function jobId(key: string): string {
  const h = createHash('sha256').update(key).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

export class PgBossJobQueue implements JobQueue {
  readonly #options: PgBossJobQueueOptions
  readonly #pool: pg.Pool
  readonly #ownPool: boolean
  readonly #boss: PgBoss
  readonly #logger: Logger
  #started: Promise<void> | undefined
  /** The queues created so far, by agent ('' for none). */
  readonly #queues = new Map<string, Promise<{ queue: string; dead: string }>>()
  #stopped = false
  readonly #schema: string
  #identity: Promise<string> | undefined
  readonly #workers = new Set<string>()

  constructor(options: PgBossJobQueueOptions) {
    this.#options = options
    const schema = options.schema ?? 'a2a_jobs'
    this.#schema = schema
    if (!SCHEMA_NAME.test(schema)) throw new Error(`PgBossJobQueue schema "${schema}" must be a lower-case SQL identifier like a2a_jobs`)
    if (!options.pool && !options.connectionString) throw new Error("PgBossJobQueue needs pool (the app's pg Pool) or connectionString")
    this.#ownPool = !options.pool
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 8 })
    this.#logger = options.logger ?? consoleLogger
    this.#pool.on('error', (error) => this.#logger.error(`a2a: job queue database connection lost: ${scrub(error)}`))
    // Once stopped, pg-boss's late timers reach no ended pool (as in the push outbox).
    const db = { executeSql: (text: string, values?: unknown[]) => (this.#stopped ? Promise.resolve(undefined as never) : this.#pool.query(text, values)) }
    this.#boss = new PgBoss({ db, schema, schedule: false, supervise: true, maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60 })
    this.#boss.on('error', (error) => this.#logger.error(`a2a: job queue: ${scrub(error)}`))
  }

  /** Creates pg-boss's tables if needed; enqueue and work call it. */
  start(): Promise<void> {
    this.#started ??= this.#boss.start().then(() => undefined)
    return this.#started
  }

  /** The agent's queue and dead-letter queue, created if needed. */
  #queuesOf(agent: string | undefined): Promise<{ queue: string; dead: string }> {
    let queues = this.#queues.get(agent ?? '')
    if (!queues) {
      const names = queuesOf(agent)
      queues = (async () => {
        await this.start()
        await createQueueOnce(this.#boss, names.dead, { policy: 'standard' })
        await createQueueOnce(this.#boss, names.queue, { policy: 'standard', deadLetter: names.dead })
        return names
      })()
      queues.catch(() => this.#queues.delete(agent ?? ''))
      this.#queues.set(agent ?? '', queues)
    }
    return queues
  }

  async enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    const { queue, ...options } = await this.#sendOptions(job, settings)
    await this.#boss.send(queue, job as unknown as object, options)
    this.wake()
  }

  /** What `send` is given for `job`: its queue, an id from its key, its retries, backoff and expiry. */
  async #sendOptions(job: QueuedJob, settings: JobSettings) {
    const { queue, dead } = await this.#queuesOf(job.agent)
    return {
      queue,
      id: jobId(job.key),
      retryLimit: settings.retries,
      retryDelay: Math.ceil(settings.backoff.delayMs / 1000),
      retryBackoff: settings.backoff.exponential,
      expireInSeconds: Math.ceil(settings.timeoutMs / 1000) + (this.#options.expireGraceSeconds ?? 10),
      deadLetter: dead,
    }
  }

  /**
   * The job as the row `send` would insert, for a store on the same database to insert with the
   * task's WORKING write (store capability jobRows): the queues are made first, as `send` needs them.
   */
  async rowOf(job: QueuedJob, settings: JobSettings): Promise<PgBossJobRow> {
    const { queue, ...options } = await this.#sendOptions(job, settings)
    if (options.expireInSeconds / 3600 >= MAX_EXPIRATION_HOURS) throw new Error(`Job "${job.job}": timeoutMs is past pg-boss's ${MAX_EXPIRATION_HOURS} hours of expiry`)
    return { schema: this.#schema, database: await this.#database(), queue, data: job, ...options }
  }

  /** The database the queue writes to, as postgres/job-rows.ts `databaseIdentity` names it. */
  #database(): Promise<string> {
    if (!this.#identity) {
      const statement = databaseIdentity(this.#schema)
      this.#identity = this.#pool.query<{ identity: string }>(statement.text, statement.values).then(({ rows }) => rows[0]!.identity)
      this.#identity.catch(() => (this.#identity = undefined))
    }
    return this.#identity
  }

  /** Tells this process's idle workers a job is queued (after `enqueue`, or a task write that inserted its row). */
  wake(): void {
    for (const id of this.#workers) this.#boss.notifyWorker(id)
  }

  async work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    const { queue, dead } = await this.#queuesOf(handlers.agent)
    const options = { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: this.#options.pollingIntervalSeconds ?? 2 } as const
    const ids: string[] = []
    // pg-boss 10 waits out its polling interval after every fetch, a job found or not: told it was
    // notified, a worker that just ran a job fetches again at once (200 jobs took 25 s at 4 × 0.5 s).
    const next = (id: () => string | undefined) => {
      const worker = id()
      if (worker) this.#boss.notifyWorker(worker)
    }
    for (let i = 0; i < handlers.concurrency; i++) {
      let id: string | undefined
      id = await this.#boss.work<QueuedJob>(queue, options, async ([job]) => {
        try {
          // retryCount counts the attempts before this one (a taken-back job's included).
          await handlers.run(job!.data, job!.retryCount + 1)
        } catch (error) {
          if (error instanceof HandedBack) await this.#handBack(queue, job!.id)
          throw error
        } finally {
          next(() => id)
        }
      })
      ids.push(id)
    }
    let deadId: string | undefined
    deadId = await this.#boss.work<QueuedJob>(dead, options, async ([job]) => {
      try {
        const output = job!.output as { message?: string } | null
        await handlers.dead(job!.data, reasonOf(output?.message ?? output), job!.retryLimit + 1)
      } finally {
        next(() => deadId)
      }
    })
    ids.push(deadId)
    for (const id of ids) this.#workers.add(id)
    return {
      stop: async () => {
        for (const id of ids) {
          this.#workers.delete(id)
          await this.#boss.offWork({ id })
        }
      },
    }
  }

  /**
   * Uncounts the attempt of a job its worker handed back, before pg-boss fails it: pg-boss's fail
   * then queues it again (retry_count below retry_limit, so never dead-lettered) after its backoff,
   * and its next fetch counts retry_count back up, so the next attempt has this one's number.
   * Done while the row is still active and this worker's: nothing else may take it in between.
   */
  async #handBack(queue: string, id: string): Promise<void> {
    await this.#pool
      .query(`UPDATE ${this.#schema}.job SET retry_count = retry_count - 1 WHERE name = $1 AND id = $2 AND state = 'active'`, [queue, id])
      .catch((error: unknown) => this.#logger.error(`a2a: job queue: could not hand job ${id} back uncounted: ${scrub(error)}`))
  }

  /** Stops pg-boss (attempts in flight are waited for a while) and closes the queue's own pool. */
  async stop(): Promise<void> {
    if (!this.#started || this.#stopped) return
    await this.#started.catch(() => undefined)
    await this.#boss.stop({ graceful: true, wait: true, close: false, timeout: 10_000 })
    this.#stopped = true
    if (this.#ownPool) await this.#pool.end()
  }
}
