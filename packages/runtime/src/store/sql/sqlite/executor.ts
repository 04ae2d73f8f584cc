/**
 * The store's statements on a better-sqlite3 connection of the store's own: statements.ts's SQL
 * with `?` placeholders, prepared once and cached, run synchronously: no Prisma client in
 * between, which costs ~140 µs per statement, several times most statements themselves.
 *
 * Values are written and read as Prisma's better-sqlite3 adapter does by default ('iso8601'), so
 * PrismaStore and the app's Prisma models read these rows as their own and the other way round.
 *
 * Locking. The app's Prisma client shares the file, on another connection in this same thread,
 * and may hold a write transaction open across awaits. A busy timeout would make this connection
 * wait synchronously, blocking the very thread that must finish that transaction; so the timeout
 * is 0 and SQLITE_BUSY is retried after short, growing sleeps, with the event loop running. In
 * turn every write of this store, one statement or several, runs inside one synchronous call and
 * never holds the lock across an await, so it never stalls the app's connection (nor other calls
 * of this store, which therefore need no queue).
 *
 * Group commit. Writes that arrive within one turn of the event loop (the requests of one poll,
 * the runs they start) are committed together, in one transaction at setImmediate, each in a
 * savepoint of its own so that one failing write fails alone. A write is acknowledged (its
 * promise resolves) only after its group committed and the WAL holding that commit was synced to
 * disk, off this thread (see wal-sync.ts: the connection commits with synchronous=NORMAL, and one
 * sync covers every commit before it), so a crash, a process kill or a power loss, loses only
 * writes nobody has been told about.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { SQLITE } from '../dialect.js'
import type { Executor, Step, Steps } from '../executor.js'
import type { Sql } from '../sql.js'
import { WalSync } from './wal-sync.js'

type Row = Record<string, unknown>

/**
 * The part of a better-sqlite3 Database the executor uses, typed here so that the runtime's
 * declarations do not need better-sqlite3's types (an optional peer dependency).
 */
export interface Connection {
  prepare(sql: string): Prepared
  transaction(fn: (work: () => unknown) => unknown): { immediate(work: () => unknown): unknown; deferred(work: () => unknown): unknown }
  pragma(source: string, options: { simple: true }): unknown
  readonly inTransaction: boolean
  close(): unknown
}

interface Prepared {
  /** True when the statement returns rows (a SELECT, or RETURNING). */
  readonly reader: boolean
  /** True when the statement writes nothing. */
  readonly readonly: boolean
  run(...params: unknown[]): { changes: number }
  all(...params: unknown[]): unknown[]
}

/** Columns Prisma declares DateTime, Json and Boolean in prisma/a2a.prisma, read back as such. */
const DATE_COLUMNS = ['createdAt', 'updatedAt', 'statusTime', 'leaseUntil', 'lastUsedAt', 'revokedAt']
const JSON_COLUMNS = ['task', 'messageIds', 'authentication']

/** Distinct SQL texts kept prepared: `IN (…)` lists of every length up to a chunk could be many. */
const CACHED_STATEMENTS = 1000

/** A bound value as the adapter binds it: dates as ISO text with an explicit offset, booleans as 1/0. */
function toParam(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace('Z', '+00:00')
  if (typeof value === 'boolean') return value ? 1 : 0
  return value
}

function fromRow(row: Row): Row {
  for (const column of DATE_COLUMNS) {
    const value = row[column]
    if (typeof value === 'string' || typeof value === 'number') row[column] = new Date(value)
  }
  for (const column of JSON_COLUMNS) {
    const value = row[column]
    if (typeof value === 'string') row[column] = JSON.parse(value)
  }
  if (typeof row.repliedWithMessage === 'number') row.repliedWithMessage = row.repliedWithMessage !== 0
  return row
}

/** A write waiting for its group's commit. */
interface Queued {
  work: () => unknown
  resolve(value: unknown): void
  reject(error: unknown): void
}

type Outcome = { value: unknown } | { error: unknown }

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

export class SqliteExecutor implements Executor {
  readonly dialect = SQLITE
  readonly #db: Connection
  readonly #name: string
  readonly #busyTimeoutMs: number
  readonly #statements = new Map<string, Prepared>()
  /** BEGIN IMMEDIATE … COMMIT around `work`: the write lock is taken first, so no upgrade can fail midway. */
  readonly #inTransaction: { immediate: (work: () => unknown) => unknown; deferred: (work: () => unknown) => unknown }

  /** Writes waiting for the next group commit; a commit is scheduled while this is not empty. */
  #queued: Queued[] = []

  /** Set until WAL is on: switching needs a moment without another connection's writes. */
  #opening: Promise<void> | undefined

  /** Tells when this connection's commits are on disk. */
  readonly #wal: WalSync

  /**
   * `db` opened with `timeout: 0` on the file `name` (it also says which database a lock timeout
   * was on); `busyTimeoutMs` bounds the retries; `wal` syncs the file's WAL (default: fdatasync).
   */
  constructor(db: Connection, name: string, busyTimeoutMs: number, wal = new WalSync(`${name}-wal`)) {
    this.#db = db
    this.#name = name
    this.#busyTimeoutMs = busyTimeoutMs
    this.#wal = wal
    this.#inTransaction = db.transaction((work: () => unknown) => work())
    this.#opening = this.#retry(() => {
      // Readers never wait for the writer nor the writer for readers: the app's connection and
      // this one take turns only on writes. The mode is kept in the file.
      const mode = db.pragma('journal_mode = WAL', { simple: true })
      if (mode !== 'wal') throw new Error(`SQLite database ${name} could not switch to WAL mode (it is in ${String(mode)} mode)`)
      // Commits leave the sync to this.#wal, off the thread; this connection's setting only.
      db.pragma('synchronous = NORMAL', { simple: true })
    }).then(() => {
      this.#opening = undefined
    })
    // Seen by the first call; not an unhandled rejection when none comes.
    this.#opening.catch(() => {})
  }

  query<Row>(statement: Sql): Promise<Row[]> {
    // A read runs at once (WAL: it waits for no writer), and answers once what it saw is on
    // disk; an UPDATE … RETURNING is a write.
    if (this.#reads(statement)) return this.#whenOpen(() => this.#query(statement) as Row[]).then((rows) => this.#durable(rows))
    return this.#write(() => this.#query(statement) as Row[])
  }

  /** `value` once every commit so far is on disk: at once (the same promise turn) when it already is. */
  #durable<T>(value: T): T | Promise<T> {
    const synced = this.#wal.durable()
    return synced ? synced.then(() => value) : value
  }

  /** Syncs what this connection committed (see WalSync.close); the store closes the connection after. */
  close(): void {
    this.#wal.close()
  }

  execute(statement: Sql): Promise<number> {
    return this.#write(() => this.#run(statement))
  }

  async batch(statements: readonly Sql[]): Promise<void> {
    await this.batchThenRead(statements)
  }

  batchThenRead<Row>(statements: readonly Sql[]): Promise<Row[]> {
    return this.#write(() => statements.map((statement) => this.#query(statement)).at(-1) as Row[])
  }

  transaction<R>(steps: () => Steps<R>): Promise<R> {
    // A fresh generator per attempt: a busy attempt was rolled back, and starts over.
    return this.#write(() => this.#drive(steps()))
  }

  /** `work` in the next group commit; resolves once that committed. */
  #write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queued.length === 0) setImmediate(() => void this.#commit())
      this.#queued.push({ work, resolve: resolve as (value: unknown) => void, reject })
    })
  }

  async #commit(): Promise<void> {
    const group = this.#queued
    this.#queued = []
    let outcomes: Outcome[]
    try {
      // Every write again after a busy attempt: the attempt was rolled back.
      outcomes = await this.#whenOpen(() => this.#inTransaction.immediate(() => group.map((queued) => this.#savepoint(queued.work))) as Outcome[])
    } catch (error) {
      for (const queued of group) queued.reject(error)
      return
    }
    this.#wal.committed()
    try {
      await this.#wal.durable()
    } catch (error) {
      for (const queued of group) queued.reject(error)
      return
    }
    outcomes.forEach((outcome, i) => ('error' in outcome ? group[i]!.reject(outcome.error) : group[i]!.resolve(outcome.value)))
  }

  /** One write of a group, rolled back alone when it fails (a transaction inside one is a savepoint). */
  #savepoint(work: () => unknown): Outcome {
    try {
      return { value: this.#inTransaction.deferred(work) }
    } catch (error) {
      // Some errors (a full disk, an I/O error) end the whole transaction: fail the group.
      if (!this.#db.inTransaction) throw error
      return { error }
    }
  }

  #whenOpen<T>(attempt: () => T): Promise<T> {
    return this.#opening ? this.#opening.then(() => this.#retry(attempt)) : this.#retry(attempt)
  }

  /** `attempt` now, and again after SQLITE_BUSY until the busy timeout, sleeping in between. */
  async #retry<T>(attempt: () => T): Promise<T> {
    let started: number | undefined
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      try {
        return attempt()
      } catch (error) {
        if (!isBusy(error)) throw error
        started ??= performance.now()
        if (performance.now() - started >= this.#busyTimeoutMs) {
          throw new Error(
            `SQLite database ${this.#name} stayed locked for ${this.#busyTimeoutMs} ms: another connection (the app's Prisma client, or another process) held a write lock`,
            { cause: error },
          )
        }
        await sleep(pause)
      }
    }
  }

  #drive<R>(steps: Steps<R>): R {
    let next = steps.next()
    while (!next.done) next = steps.next(this.#step(next.value))
    return next.value
  }

  #step(step: Step): unknown {
    return 'query' in step ? this.#query(step.query) : this.#run(step.execute)
  }

  #prepare(statement: Sql): Prepared {
    let prepared = this.#statements.get(statement.sql)
    if (!prepared) {
      if (this.#statements.size >= CACHED_STATEMENTS) this.#statements.delete(this.#statements.keys().next().value!)
      prepared = this.#db.prepare(statement.sql)
      this.#statements.set(statement.sql, prepared)
    }
    return prepared
  }

  #reads(statement: Sql): boolean {
    try {
      return this.#prepare(statement).readonly
    } catch {
      // Not preparable now (the schema locked, a bad statement): the write path retries or reports it.
      return false
    }
  }

  #query(statement: Sql): Row[] {
    const prepared = this.#prepare(statement)
    const params = statement.values.map(toParam)
    if (!prepared.reader) {
      prepared.run(...params)
      return []
    }
    return (prepared.all(...params) as Row[]).map(fromRow)
  }

  #run(statement: Sql): number {
    return this.#prepare(statement).run(...statement.values.map(toParam)).changes
  }
}
