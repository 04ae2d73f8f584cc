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
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { backoffMs } from '../skills/job.js'
import { reasonOf, type JobHandlers, type JobQueue, type JobSettings, type QueuedJob } from '../skills/job-queue.js'

export interface SqliteJobQueueOptions {
  /** The queue's file, e.g. `./dev.jobs.db` beside `./dev.db` (created if missing); or a Prisma `file:` URL. */
  file: string
  /** How often an idle worker looks for jobs that fell due; default 500 ms. */
  pollingIntervalMs?: number
  /** Past an attempt's timeout, how long before a job whose worker stopped is taken back; default 10 s. */
  expireGraceMs?: number
  /** Done and dead jobs are kept this long (a repeated enqueue of a kept key stores nothing); default 14 days. */
  keepMs?: number
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

interface Row {
  key: string
  data: string
  retries: number
  delay_ms: number
  exponential: number
  timeout_ms: number
  attempts: number
  state: 'waiting' | 'active' | 'done' | 'dead'
  run_at: number
  last_error: string | null
}

export interface DeadSqliteJob {
  job: QueuedJob
  reason: string
  attempts: number
}

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

export class SqliteJobQueue implements JobQueue {
  readonly #db: Connection
  readonly #options: SqliteJobQueueOptions
  readonly #worker = randomUUID()
  readonly #lanes = new Map<string, { handlers: JobHandlers; active: number; timer: NodeJS.Timeout | undefined }>()
  readonly #running = new Set<Promise<void>>()
  readonly #statements: Record<'insert' | 'due' | 'claim' | 'retry' | 'done' | 'dead' | 'hold' | 'prune', Statement>

  constructor(options: SqliteJobQueueOptions) {
    if (typeof options?.file !== 'string') throw new Error('SqliteJobQueue needs file: the path of its SQLite file, e.g. ./dev.jobs.db')
    this.#options = options
    this.#db = open(options.file)
    const prepare = (sql: string) => this.#db.prepare(sql)
    this.#statements = {
      insert: prepare(`INSERT OR IGNORE INTO a2a_job (key, agent, data, retries, delay_ms, exponential, timeout_ms, run_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // Waiting and due, or active past its expiry (its worker stopped).
      due: prepare(`SELECT * FROM a2a_job WHERE agent = ? AND state IN ('waiting', 'active') AND run_at <= ? ORDER BY run_at LIMIT 1`),
      claim: prepare(`UPDATE a2a_job SET state = 'active', attempts = attempts + 1, run_at = ?, worker = ?, updated_at = ? WHERE key = ?`),
      retry: prepare(`UPDATE a2a_job SET state = 'waiting', run_at = ?, last_error = ?, worker = NULL, updated_at = ? WHERE key = ? AND worker = ?`),
      done: prepare(`UPDATE a2a_job SET state = 'done', worker = NULL, updated_at = ? WHERE key = ? AND worker = ?`),
      dead: prepare(`UPDATE a2a_job SET state = 'dead', last_error = ?, worker = NULL, updated_at = ? WHERE key = ?`),
      hold: prepare(`UPDATE a2a_job SET run_at = ?, updated_at = ? WHERE key = ?`),
      prune: prepare(`DELETE FROM a2a_job WHERE state IN ('done', 'dead') AND updated_at < ?`),
    }
  }

  async enqueue(job: QueuedJob, settings: JobSettings): Promise<void> {
    const now = Date.now()
    const { retries, backoff, timeoutMs } = settings
    this.#statements.insert.run(job.key, job.agent ?? '', JSON.stringify(job), retries, backoff.delayMs, backoff.exponential ? 1 : 0, timeoutMs, now, now)
    const lane = this.#lanes.get(job.agent ?? '')
    if (lane) this.#pump(job.agent ?? '')
  }

  async work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }> {
    const agent = handlers.agent ?? ''
    if (this.#lanes.has(agent)) throw new Error(`SqliteJobQueue runs one worker per agent${agent ? ` ("${agent}")` : ''}: stop the other first`)
    const lane = { handlers, active: 0, timer: undefined as NodeJS.Timeout | undefined }
    this.#lanes.set(agent, lane)
    this.#statements.prune.run(Date.now() - (this.#options.keepMs ?? 14 * 86_400_000))
    this.#pump(agent)
    return {
      stop: async () => {
        clearTimeout(lane.timer)
        if (this.#lanes.get(agent) === lane) this.#lanes.delete(agent)
        await Promise.all([...this.#running])
      },
    }
  }

  /** Jobs past their retries, oldest first. */
  deadLetters(): DeadSqliteJob[] {
    const rows = this.#db.prepare(`SELECT * FROM a2a_job WHERE state = 'dead' ORDER BY updated_at`).all() as Row[]
    return rows.map((row) => ({ job: JSON.parse(row.data) as QueuedJob, reason: row.last_error ?? '', attempts: row.attempts }))
  }

  /** Closes the file (as {@link close}), for apps that stop every queue alike. */
  async stop(): Promise<void> {
    this.close()
  }

  /** Closes the file; stop the workers first. */
  close(): void {
    for (const lane of this.#lanes.values()) clearTimeout(lane.timer)
    this.#lanes.clear()
    this.#db.close()
  }

  /** Starts every due job the lane has room for, then looks again after the polling interval. */
  #pump(agent: string): void {
    const lane = this.#lanes.get(agent)
    if (!lane) return
    clearTimeout(lane.timer)
    while (lane.active < lane.handlers.concurrency) {
      const claimed = this.#claim(agent)
      if (!claimed) break
      this.#start(agent, lane, claimed)
    }
    lane.timer = setTimeout(() => this.#pump(agent), this.#options.pollingIntervalMs ?? 500).unref()
  }

  /** Takes the next due job, in one write transaction; an expired attempt past the retries is dead-lettered instead. */
  #claim(agent: string): { row: Row; dead?: string } | undefined {
    const grace = this.#options.expireGraceMs ?? 10_000
    return this.#db
      .transaction(() => {
        const now = Date.now()
        const row = this.#statements.due.get(agent, now) as Row | undefined
        if (!row) return undefined
        if (row.state === 'active' && row.attempts > row.retries) {
          // Held for the dead-letter write (as an attempt is), which marks it dead once its task is failed.
          this.#statements.hold.run(now + grace, now, row.key)
          return { row, dead: 'its worker stopped during the last attempt' }
        }
        this.#statements.claim.run(now + row.timeout_ms + grace, this.#worker, now, row.key)
        return { row: { ...row, attempts: row.attempts + 1 } }
      })
      .immediate()
  }

  #start(agent: string, lane: { handlers: JobHandlers; active: number }, { row, dead }: { row: Row; dead?: string }): void {
    const job = JSON.parse(row.data) as QueuedJob
    const { handlers } = lane
    lane.active++
    // Marked dead once the task is failed: a failure (or crash) before leaves it to be taken back and tried again.
    const deadLetter = async (reason: string) => {
      await handlers.dead(job, reason, row.attempts)
      this.#statements.dead.run(reason, Date.now(), row.key)
    }
    const attempt = dead
      ? deadLetter(dead)
      : handlers.run(job, row.attempts).then(
          () => void this.#statements.done.run(Date.now(), row.key, this.#worker),
          async (error: unknown) => {
            const reason = reasonOf(error)
            if (row.attempts <= row.retries) {
              const pause = backoffMs({ backoff: { delayMs: row.delay_ms, exponential: row.exponential === 1 } }, row.attempts)
              this.#statements.retry.run(Date.now() + pause, reason, Date.now(), row.key, this.#worker)
              return
            }
            await deadLetter(reason)
          },
        )
    const running = attempt
      .catch(() => undefined)
      .finally(() => {
        lane.active--
        this.#running.delete(running)
        this.#pump(agent)
      })
    this.#running.add(running)
  }
}
