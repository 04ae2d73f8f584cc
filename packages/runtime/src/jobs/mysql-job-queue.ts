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
import { createHash } from 'node:crypto'
import type mariadb from 'mariadb'
import { consoleLogger, type Logger } from '../log/logger.js'
import { unreachable, withCause } from '../store/sql/mysql/pool-errors.js'
import { mariadbPool } from '../store/sql/mysql/mariadb-pool.js'
import { DATABASE_MS as NOW } from '../store/sql/mysql/clock.js'
import { overDeadlocks, pruneRows, readCommitted } from '../store/sql/mysql/transaction.js'
import type { JobHandlers, JobQueue, JobSettings, QueuedJob } from '../skills/job-queue.js'
import type { DeadJob } from './memory-job-queue.js'
import { type Claim, claimOf, type DeadRow, deadJobOf, type JobRow, type JobTable, type Outcome, TableJobQueue, type TableJobQueueOptions } from './table-job-queue.js'

export interface MysqlJobQueueOptions extends TableJobQueueOptions {
  /** A mariadb pool the queue shares (it adds `error` listeners that log); or give `url`. */
  pool?: mariadb.Pool
  /** For a pool of the queue's own (closed by stop()): the app's `mysql://` or `mariadb://` URL. */
  url?: string
  logger?: Logger
}

export type DeadMysqlJob = DeadJob

/** The queue's table, in the app's database beside the task store's; `a2a migrate` leaves it out of the app's schema. */
export const MYSQL_JOBS_TABLE = 'a2a_jobs'

const T = MYSQL_JOBS_TABLE

// run_at is when the job is next due (waiting: its backoff; active: its lease), NULL once done or
// dead: the claim's range scan on (agent, run_at) then meets only live jobs, in due order.
const SCHEMA = `CREATE TABLE IF NOT EXISTS ${T} (
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
  KEY ${T}_due (agent, run_at),
  KEY ${T}_kept (state, updated_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`

/** The key's row id: a key holds a client's message id, of any length; its hash fits a primary key. */
export const mysqlJobId = (key: string): string => createHash('sha256').update(key).digest('hex')

/** The queue's statements on the pool. */
class MysqlJobTable implements JobTable {
  readonly #pool: mariadb.Pool
  /** The URL of the queue's own pool, named when it cannot connect. */
  readonly #url: string | undefined
  #started: Promise<void> | undefined

  constructor(pool: mariadb.Pool, url: string | undefined) {
    this.#pool = pool
    this.#url = url
  }

  ready(): Promise<void> {
    this.#started ??= this.#pool.query(SCHEMA).then(() => undefined, unreachable('MysqlJobQueue', this.#url))
    this.#started.catch(() => (this.#started = undefined))
    return this.#started
  }

  async insert(job: QueuedJob, { retries, backoff, timeoutMs }: JobSettings): Promise<void> {
    await this.#pool.query(
      `INSERT IGNORE INTO ${T} (id, agent, data, retries, delay_ms, exponential, timeout_ms, run_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ${NOW}, ${NOW})`,
      [mysqlJobId(job.key), job.agent ?? '', JSON.stringify(job), retries, backoff.delayMs, backoff.exponential ? 1 : 0, timeoutMs],
    )
  }

  prune(keepMs: number): Promise<void> {
    return pruneRows(this.#pool, T, `state IN ('done', 'dead') AND updated_at < ${NOW} - ?`, [keepMs])
  }

  /** In one short transaction, skipping rows another worker is claiming (`FOR UPDATE SKIP LOCKED`). */
  claim(agent: string, worker: string, graceMs: number): Promise<Claim | undefined> {
    return readCommitted(this.#pool, async (query) => {
      const [row] = await query<JobRow[]>(
        `SELECT id, data, retries, delay_ms, exponential, timeout_ms, attempts, state FROM ${T} WHERE agent = ? AND run_at <= ${NOW} ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [agent],
      )
      if (!row) return undefined
      const { claim, holdMs } = claimOf(row, graceMs)
      // Held for the dead-letter write, or leased as the next attempt.
      const set = claim.dead ? '' : `state = 'active', attempts = attempts + 1, `
      await query(`UPDATE ${T} SET ${set}run_at = ${NOW} + ?, worker = ?, updated_at = ${NOW} WHERE id = ?`, [holdMs, worker, row.id])
      return claim
    })
  }

  /** None once the job was taken again by another worker (its lease lapsed). */
  async settle(id: string, worker: string, outcome: Outcome): Promise<void> {
    const [set, values]: [string, unknown[]] =
      outcome.state === 'done'
        ? [`state = 'done', run_at = NULL`, []]
        : outcome.state === 'waiting'
          ? [`state = 'waiting', run_at = ${NOW} + ?, last_error = ?`, [outcome.pauseMs, outcome.reason]]
          : outcome.state === 'handedBack'
            ? [`state = 'waiting', attempts = attempts - 1, run_at = ${NOW}`, []]
            : [`state = 'dead', run_at = NULL, last_error = ?`, [outcome.reason]]
    // Sent again when InnoDB ends it as a deadlock's victim: else the attempt would be taken again once its lease lapsed, and counted twice.
    await overDeadlocks(() => this.#pool.query(`UPDATE ${T} SET ${set}, worker = NULL, updated_at = ${NOW} WHERE id = ? AND worker = ?`, [...values, id, worker]))
  }

  async deadLetters(): Promise<DeadMysqlJob[]> {
    await this.ready()
    const rows = (await this.#pool.query(`SELECT data, last_error, attempts FROM ${T} WHERE state = 'dead' ORDER BY updated_at`)) as DeadRow[]
    return rows.map(deadJobOf)
  }
}

export class MysqlJobQueue implements JobQueue {
  readonly #close: () => Promise<void>
  readonly #table: MysqlJobTable
  readonly #queue: TableJobQueue

  constructor(options: MysqlJobQueueOptions) {
    const logger = options?.logger ?? consoleLogger
    const { pool, url, close } = mariadbPool('MysqlJobQueue', options, {}, (error) => logger.error(`a2a: job queue database connection lost: ${withCause(error)}`))
    this.#close = close
    this.#table = new MysqlJobTable(pool, url)
    this.#queue = new TableJobQueue(this.#table, { ...options, oneWorker: 'MysqlJobQueue runs one worker per agent in a process', logger })
  }

  /** Creates the table if missing; enqueue and work call it. Rejects naming the URL (without its password) when the queue's own pool cannot connect. */
  start(): Promise<void> {
    return this.#table.ready()
  }

  enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    return this.#queue.enqueue(job, settings)
  }

  work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    return this.#queue.work(handlers)
  }

  /** Jobs past their retries, oldest first. */
  deadLetters(): Promise<DeadMysqlJob[]> {
    return this.#table.deadLetters()
  }

  /** Stops looking for jobs, lets attempts in flight end, and closes the queue's own pool. */
  async stop(): Promise<void> {
    await this.#queue.halt()
    await this.#close()
  }
}
