/**
 * Jobs of SQLite apps: a table in a SQLite file beside the app's database (its own file, so the
 * app's migrations never see a table they do not know), through better-sqlite3, the driver SQLite
 * apps have. One process serves a SQLite app, so one process works its queue; what the file adds
 * over MemoryJobQueue is that queued jobs survive that process: after a crash or a restart, the
 * jobs still waiting run, and an attempt cut by the crash is taken back once its timeout and a
 * grace have passed, counted as an attempt. Retries follow the job's backoff exactly, without
 * jitter; a job past its retries is kept as dead with its reason.
 * @module
 */
import { createRequire } from 'node:module'
import type { JobHandlers, JobQueue, JobSettings, QueuedJob } from '../skills/job-queue.js'
import type { DeadJob } from './memory-job-queue.js'
import { type Claim, claimOf, type DeadRow, deadJobOf, type JobRow, type JobTable, type Outcome, TableJobQueue, type TableJobQueueOptions } from './table-job-queue.js'

export interface SqliteJobQueueOptions extends TableJobQueueOptions {
  /** The queue's file, e.g. `./dev.jobs.db` beside `./dev.db` (created if missing); or a Prisma `file:` URL. */
  file: string
}

interface Statement {
  run(...values: unknown[]): { changes: number }
  get(...values: unknown[]): unknown
  all(...values: unknown[]): unknown[]
}
interface Connection {
  prepare(sql: string): Statement
  exec(sql: string): void
  pragma(sql: string): unknown
  transaction<T>(fn: () => T): { immediate(): T }
  close(): void
}
type Driver = new (file: string, options: { timeout: number }) => Connection

export type DeadSqliteJob = DeadJob

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS a2a_job (
    key TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    data TEXT NOT NULL,
    retries INTEGER NOT NULL,
    delay_ms INTEGER NOT NULL,
    exponential INTEGER NOT NULL,
    timeout_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL DEFAULT 'waiting',
    run_at INTEGER NOT NULL,
    worker TEXT,
    last_error TEXT,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS a2a_job_due ON a2a_job (agent, state, run_at);
`

function open(file: string): Connection {
  let Database: Driver
  try {
    Database = createRequire(import.meta.url)('better-sqlite3') as Driver
  } catch (error) {
    throw new Error('SqliteJobQueue needs the better-sqlite3 package: npm install better-sqlite3', { cause: error })
  }
  const path = file.replace(/^file:/, '')
  if (path === '' || path.startsWith(':memory:'))
    throw new Error(`SqliteJobQueue needs a file, not ${JSON.stringify(file)}: its jobs must outlive the process (use MemoryJobQueue otherwise)`)
  const db = new Database(path, { timeout: 5000 })
  db.pragma('journal_mode = WAL')
  db.exec(SCHEMA)
  return db
}

/** The queue's statements: synchronous, so a pass over a lane claims without yielding. Times are this process's clock. */
class SqliteJobTable implements JobTable {
  readonly #db: Connection
  readonly #statements: Record<'insert' | 'due' | 'claim' | 'retry' | 'handBack' | 'done' | 'dead' | 'hold' | 'prune', Statement>

  constructor(db: Connection) {
    this.#db = db
    const prepare = (sql: string) => db.prepare(sql)
    this.#statements = {
      insert: prepare(`INSERT OR IGNORE INTO a2a_job (key, agent, data, retries, delay_ms, exponential, timeout_ms, run_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // Waiting and due, or active past its expiry (its worker stopped).
      due: prepare(
        `SELECT key AS id, data, retries, delay_ms, exponential, timeout_ms, attempts, state FROM a2a_job WHERE agent = ? AND state IN ('waiting', 'active') AND run_at <= ? ORDER BY run_at LIMIT 1`,
      ),
      claim: prepare(`UPDATE a2a_job SET state = 'active', attempts = attempts + 1, run_at = ?, worker = ?, updated_at = ? WHERE key = ?`),
      retry: prepare(`UPDATE a2a_job SET state = 'waiting', run_at = ?, last_error = ?, worker = NULL, updated_at = ? WHERE key = ? AND worker = ?`),
      handBack: prepare(`UPDATE a2a_job SET state = 'waiting', attempts = attempts - 1, run_at = ?, worker = NULL, updated_at = ? WHERE key = ? AND worker = ?`),
      done: prepare(`UPDATE a2a_job SET state = 'done', worker = NULL, updated_at = ? WHERE key = ? AND worker = ?`),
      dead: prepare(`UPDATE a2a_job SET state = 'dead', last_error = ?, worker = NULL, updated_at = ? WHERE key = ?`),
      hold: prepare(`UPDATE a2a_job SET run_at = ?, updated_at = ? WHERE key = ?`),
      prune: prepare(`DELETE FROM a2a_job WHERE state IN ('done', 'dead') AND updated_at < ?`),
    }
  }

  insert(job: QueuedJob, { retries, backoff, timeoutMs }: JobSettings): void {
    const now = Date.now()
    this.#statements.insert.run(job.key, job.agent ?? '', JSON.stringify(job), retries, backoff.delayMs, backoff.exponential ? 1 : 0, timeoutMs, now, now)
  }

  prune(keepMs: number): void {
    this.#statements.prune.run(Date.now() - keepMs)
  }

  /** In one write transaction. */
  claim(agent: string, worker: string, graceMs: number): Claim | undefined {
    return this.#db
      .transaction(() => {
        const now = Date.now()
        const row = this.#statements.due.get(agent, now) as JobRow | undefined
        if (!row) return undefined
        const { claim, holdMs } = claimOf(row, graceMs)
        if (claim.dead) this.#statements.hold.run(now + holdMs, now, row.id)
        else this.#statements.claim.run(now + holdMs, worker, now, row.id)
        return claim
      })
      .immediate()
  }

  settle(id: string, worker: string, outcome: Outcome): void {
    const now = Date.now()
    if (outcome.state === 'done') this.#statements.done.run(now, id, worker)
    else if (outcome.state === 'waiting') this.#statements.retry.run(now + outcome.pauseMs, outcome.reason, now, id, worker)
    else if (outcome.state === 'handedBack') this.#statements.handBack.run(now, now, id, worker)
    else this.#statements.dead.run(outcome.reason, now, id)
  }
}

export class SqliteJobQueue implements JobQueue {
  readonly #db: Connection
  readonly #queue: TableJobQueue

  constructor(options: SqliteJobQueueOptions) {
    if (typeof options?.file !== 'string') throw new Error('SqliteJobQueue needs file: the path of its SQLite file, e.g. ./dev.jobs.db')
    this.#db = open(options.file)
    this.#queue = new TableJobQueue(new SqliteJobTable(this.#db), { ...options, oneWorker: 'SqliteJobQueue runs one worker per agent' })
  }

  enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    return this.#queue.enqueue(job, settings)
  }

  work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    return this.#queue.work(handlers)
  }

  /** Jobs past their retries, oldest first. */
  deadLetters(): DeadSqliteJob[] {
    const rows = this.#db.prepare(`SELECT data, last_error, attempts FROM a2a_job WHERE state = 'dead' ORDER BY updated_at`).all() as DeadRow[]
    return rows.map(deadJobOf)
  }

  /** Closes the file (as {@link close}), for apps that stop every queue alike. */
  async stop(): Promise<void> {
    this.close()
  }

  /** Closes the file; stop the workers first. */
  close(): void {
    // Attempts still running are not awaited: their end's write fails on the closed file and the job is taken back.
    void this.#queue.halt()
    this.#db.close()
  }
}
