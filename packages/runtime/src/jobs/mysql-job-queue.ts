/**
 * Jobs of MySQL 8 and MariaDB (10.6 and later) apps: a table `a2a_jobs` in the app's database,
 * through the mariadb driver the app's Prisma adapter runs on. It is created on start when missing,
 * as pg-boss creates its schema: the queue's table is the runtime's, not one of the app's models,
 * and `a2a migrate` leaves it out of the app's schema. Any number of processes work one queue: a
 * worker claims the next due job in a short transaction (`SELECT … FOR UPDATE SKIP LOCKED`, so two
 * never take one job, nor wait on each other) and leases it for the attempt's timeout plus a
 * grace; a worker killed mid-attempt has its job taken again once the lease lapses, counted as an
 * attempt. Times are the database's clock, so processes on hosts whose clocks differ agree. Retries
 * follow the job's backoff exactly, without jitter; a job past its retries is kept as dead with its
 * reason.
 * @module
 */
import { createHash, randomUUID } from 'node:crypto'
import mariadb from 'mariadb'
import { consoleLogger, scrub, type Logger } from '../log/logger.js'
import { backoffMs } from '../skills/job.js'
import { reasonOf, type JobHandlers, type JobQueue, type JobSettings, type QueuedJob } from '../skills/job-queue.js'

export interface MysqlJobQueueOptions {
  /** A mariadb pool the queue shares; or give `url`. */
  pool?: mariadb.Pool
  /** For a pool of the queue's own (closed by stop()): the app's `mysql://` or `mariadb://` URL. */
  url?: string
  /** How often an idle worker looks for jobs that fell due or other processes queued; default 500 ms. */
  pollingIntervalMs?: number
  /** Past an attempt's timeout, how long before a job whose worker went silent is taken again; default 10 s. */
  expireGraceMs?: number
  /** Done and dead jobs are kept this long (a repeated enqueue of a kept key stores nothing); default 14 days. */
  keepMs?: number
  logger?: Logger
}

export interface DeadMysqlJob {
  job: QueuedJob
  reason: string
  attempts: number
}

interface Row {
  id: string
  data: string
  retries: number
  delay_ms: number
  exponential: number
  timeout_ms: number
  attempts: number
  state: 'waiting' | 'active' | 'done' | 'dead'
  last_error: string | null
}

// run_at is when the job is next due (waiting: its backoff; active: its lease), NULL once done or
// dead: the claim's range scan on (agent, run_at) then meets only live jobs, in due order.
const SCHEMA = `CREATE TABLE IF NOT EXISTS a2a_jobs (
  id CHAR(64) CHARACTER SET ascii NOT NULL,
  agent VARCHAR(191) NOT NULL,
  data LONGTEXT NOT NULL,
  retries INT NOT NULL,
  delay_ms BIGINT NOT NULL,
  exponential TINYINT NOT NULL,
  timeout_ms BIGINT NOT NULL,
  attempts INT NOT NULL DEFAULT 0,
  state VARCHAR(8) NOT NULL DEFAULT 'waiting',
  run_at BIGINT NULL,
  worker CHAR(36) CHARACTER SET ascii NULL,
  last_error TEXT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY a2a_jobs_due (agent, run_at),
  KEY a2a_jobs_kept (state, updated_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`

/** The database's time in ms: every process of the queue reads one clock. */
const NOW = 'CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)'
const URL_SCHEME = /^(mysql|mariadb):\/\//

/** The key's row id: a key holds a client's message id, of any length; its hash fits a primary key. */
export const mysqlJobId = (key: string): string => createHash('sha256').update(key).digest('hex')

/** A worker's lane: `pass` is the pump's look for jobs in flight (a claim is a database round trip). */
type Lane = { handlers: JobHandlers; active: number; timer: NodeJS.Timeout | undefined; pass: Promise<void> | undefined; again: boolean }

export class MysqlJobQueue implements JobQueue {
  readonly #options: MysqlJobQueueOptions
  readonly #pool: mariadb.Pool
  readonly #ownPool: boolean
  readonly #logger: Logger
  readonly #worker = randomUUID()
  readonly #lanes = new Map<string, Lane>()
  readonly #running = new Set<Promise<void>>()
  #started: Promise<void> | undefined

  constructor(options: MysqlJobQueueOptions) {
    if (!options?.pool && !options?.url) throw new Error("MysqlJobQueue needs pool (a mariadb pool) or url (the app's mysql:// URL, e.g. mysql://root@127.0.0.1:3306/invoices)")
    if (!options.pool && !URL_SCHEME.test(options.url!))
      throw new Error(
        `MysqlJobQueue url must be a mysql:// or mariadb:// URL, e.g. mysql://root@127.0.0.1:3306/invoices; got one starting ${JSON.stringify(scrub(String(options.url).split('//')[0], 20))}`,
      )
    this.#options = options
    this.#ownPool = !options.pool
    // The driver reads mariadb:// URLs only; BIGINT columns (times in ms) as numbers, not BigInt.
    this.#pool = options.pool ?? mariadb.createPool(options.url!.replace(/^mysql:/, 'mariadb:'))
    this.#logger = options.logger ?? consoleLogger
  }

  /** Creates the table if missing; enqueue and work call it. */
  start(): Promise<void> {
    this.#started ??= this.#pool.query(SCHEMA).then(() => undefined)
    this.#started.catch(() => (this.#started = undefined))
    return this.#started
  }

  async enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    await this.start()
    const { retries, backoff, timeoutMs } = settings
    await this.#pool.query(
      `INSERT IGNORE INTO a2a_jobs (id, agent, data, retries, delay_ms, exponential, timeout_ms, run_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ${NOW}, ${NOW})`,
      [mysqlJobId(job.key), job.agent ?? '', JSON.stringify(job), retries, backoff.delayMs, backoff.exponential ? 1 : 0, timeoutMs],
    )
    if (this.#lanes.has(job.agent ?? '')) this.#pump(job.agent ?? '')
  }

  async work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    const agent = handlers.agent ?? ''
    if (this.#lanes.has(agent)) throw new Error(`MysqlJobQueue runs one worker per agent in a process${agent ? ` ("${agent}")` : ''}: stop the other first`)
    await this.start()
    const lane: Lane = { handlers, active: 0, timer: undefined, pass: undefined, again: false }
    this.#lanes.set(agent, lane)
    await this.#pool.query(`DELETE FROM a2a_jobs WHERE state IN ('done', 'dead') AND updated_at < ${NOW} - ?`, [this.#options.keepMs ?? 14 * 86_400_000])
    this.#pump(agent)
    return {
      stop: async () => {
        clearTimeout(lane.timer)
        if (this.#lanes.get(agent) === lane) this.#lanes.delete(agent)
        // A claim in flight may still start a job: it runs to its end as the others do.
        await lane.pass
        await Promise.all([...this.#running])
      },
    }
  }

  /** Jobs past their retries, oldest first. */
  async deadLetters(): Promise<DeadMysqlJob[]> {
    await this.start()
    const rows = (await this.#pool.query(`SELECT data, last_error, attempts FROM a2a_jobs WHERE state = 'dead' ORDER BY updated_at`)) as Row[]
    return rows.map((row) => ({ job: JSON.parse(row.data) as QueuedJob, reason: row.last_error ?? '', attempts: row.attempts }))
  }

  /** Stops looking for jobs, lets attempts in flight end, and closes the queue's own pool. */
  async stop(): Promise<void> {
    const lanes = [...this.#lanes.values()]
    for (const lane of lanes) clearTimeout(lane.timer)
    this.#lanes.clear()
    await Promise.all(lanes.map((lane) => lane.pass))
    await Promise.all([...this.#running])
    if (this.#ownPool) await this.#pool.end()
  }

  /** Starts every due job the lane has room for, then looks again after the polling interval; one pass at a time per lane. */
  #pump(agent: string): void {
    const lane = this.#lanes.get(agent)
    if (!lane) return
    if (lane.pass) {
      lane.again = true
      return
    }
    clearTimeout(lane.timer)
    const pass = this.#take(agent, lane)
    lane.pass = pass
    // Settled in a later microtask: after lane.pass is set, even when the pass ended at once.
    void pass.finally(() => {
      lane.pass = undefined
      if (this.#lanes.get(agent) !== lane) return
      if (lane.again) {
        lane.again = false
        this.#pump(agent)
      } else lane.timer = setTimeout(() => this.#pump(agent), this.#options.pollingIntervalMs ?? 500).unref()
    })
  }

  /** Claims and starts jobs while the lane has room and due jobs wait. */
  async #take(agent: string, lane: Lane): Promise<void> {
    try {
      while (lane.active < lane.handlers.concurrency && this.#lanes.get(agent) === lane) {
        const claimed = await this.#claim(agent)
        if (!claimed) break
        this.#start(agent, lane, claimed)
      }
    } catch (error) {
      this.#logger.error(`a2a: job queue: could not take a job: ${scrub(error)}`)
    }
  }

  /**
   * Takes the next due job in one short transaction, skipping rows another worker is claiming; an
   * expired attempt past the retries is held for its dead-letter write instead. READ COMMITTED: the
   * scan locks only the row it returns.
   */
  async #claim(agent: string): Promise<{ row: Row; dead?: string } | undefined> {
    const grace = this.#options.expireGraceMs ?? 10_000
    const connection = await this.#pool.getConnection()
    try {
      await connection.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED')
      await connection.beginTransaction()
      const [row] = (await connection.query(
        {
          sql: `SELECT id, data, retries, delay_ms, exponential, timeout_ms, attempts, state FROM a2a_jobs WHERE agent = ? AND run_at <= ${NOW} ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
          bigIntAsNumber: true,
        },
        [agent],
      )) as Row[]
      let claimed: { row: Row; dead?: string } | undefined
      if (row && row.state === 'active' && row.attempts > row.retries) {
        await connection.query(`UPDATE a2a_jobs SET run_at = ${NOW} + ?, worker = ?, updated_at = ${NOW} WHERE id = ?`, [grace, this.#worker, row.id])
        claimed = { row, dead: 'its worker stopped during the last attempt' }
      } else if (row) {
        await connection.query(`UPDATE a2a_jobs SET state = 'active', attempts = attempts + 1, run_at = ${NOW} + ?, worker = ?, updated_at = ${NOW} WHERE id = ?`, [
          row.timeout_ms + grace,
          this.#worker,
          row.id,
        ])
        claimed = { row: { ...row, attempts: row.attempts + 1 } }
      }
      await connection.commit()
      return claimed
    } catch (error) {
      await connection.rollback().catch(() => undefined)
      throw error
    } finally {
      await connection.release()
    }
  }

  /** A write of this worker's attempt: none once the job was taken again by another (its lease lapsed). */
  async #settle(id: string, set: string, values: unknown[]): Promise<void> {
    await this.#pool.query(`UPDATE a2a_jobs SET ${set}, worker = NULL, updated_at = ${NOW} WHERE id = ? AND worker = ?`, [...values, id, this.#worker])
  }

  #start(agent: string, lane: Lane, { row, dead }: { row: Row; dead?: string }): void {
    const job = JSON.parse(row.data) as QueuedJob
    const { handlers } = lane
    lane.active++
    // Marked dead once the task is failed: a failure (or crash) before leaves it to be taken again and retried.
    const deadLetter = async (reason: string) => {
      await handlers.dead(job, reason, row.attempts)
      await this.#settle(row.id, `state = 'dead', run_at = NULL, last_error = ?`, [reason])
    }
    const attempt = dead
      ? deadLetter(dead)
      : handlers.run(job, row.attempts).then(
          () => this.#settle(row.id, `state = 'done', run_at = NULL`, []),
          async (error: unknown) => {
            const reason = reasonOf(error)
            if (row.attempts <= row.retries) {
              const pause = backoffMs({ backoff: { delayMs: row.delay_ms, exponential: row.exponential === 1 } }, row.attempts)
              await this.#settle(row.id, `state = 'waiting', run_at = ${NOW} + ?, last_error = ?`, [pause, reason])
              return
            }
            await deadLetter(reason)
          },
        )
    const running = attempt
      .catch((error: unknown) => this.#logger.error(`a2a: job queue: job ${row.id} of "${job.job}": ${scrub(error)}`))
      .finally(() => {
        lane.active--
        this.#running.delete(running)
        this.#pump(agent)
      })
    this.#running.add(running)
  }
}
