/**
 * What the task store needs of a database connection, so one store logic (sql-store.ts) runs on
 * the app's Prisma client (prisma-executor.ts) or on a better-sqlite3 connection of its own
 * (sqlite/executor.ts). Every statement comes from statements.ts.
 *
 * The one multi-step transaction, an update that re-indexes message ids, is a generator of
 * statements rather than an async function: the Prisma executor awaits each step inside an
 * interactive transaction, while the better-sqlite3 executor drives the same steps synchronously
 * inside one `db.transaction(...)`, so its write lock is never held across an await.
 * @module
 */
import type { Dialect } from './dialect.js'
import type { Sql } from './sql.js'

/** One statement of a transaction: rows of a query, or the change count of an execute. */
export type Step = { query: Sql } | { execute: Sql }

/** A transaction's statements; each yield is answered with that statement's result. */
export type Steps<R> = Generator<Step, R, unknown>

/** How a statement may be run. */
export interface Run {
  /**
   * Running it twice leaves what running it once does (a read, an upsert, a delete): an executor
   * may send it again on a fresh connection when the first one died under it.
   */
  idempotent?: boolean
  /**
   * A write the executor may commit in one transaction with other such writes of the same turn
   * of the event loop (each still answered only once committed): one commit for many.
   */
  group?: boolean
}

export interface Executor {
  /** The database's SQL: what the statements ask where databases differ, and how the executor sends them. */
  readonly dialect: Dialect
  /** Rows of a SELECT or of a statement with RETURNING. */
  query<Row>(statement: Sql, run?: Run): Promise<Row[]>
  /** A statement without rows; resolves to the number of rows it changed. */
  execute(statement: Sql, run?: Run): Promise<number>
  /** The statements in order, in one transaction: all or none. */
  batch(statements: readonly Sql[], run?: Run): Promise<void>
  /**
   * The same, resolving with the last statement's rows: for statements that need nothing of the
   * ones before them, so a connection that pipelines sends them all at once (one round trip).
   */
  batchThenRead<Row>(statements: readonly Sql[], run?: Run): Promise<Row[]>
  /**
   * The steps in one transaction, reads and writes atomically. `steps` may be called again to
   * start over (after the attempt was rolled back), so it must not keep state between calls.
   */
  transaction<R>(steps: () => Steps<R>): Promise<R>
  /**
   * True when `error` says the connection died under the statement, so it may or may not have
   * been applied; the store then reads back what it wrote. Absent: the executor loses no connections.
   */
  lostConnection?(error: unknown): boolean
}

/** A query step inside {@link Steps}: `const rows = yield* read<Row>(statement)`. */
export function* read<Row>(statement: Sql): Generator<Step, Row[], unknown> {
  return (yield { query: statement }) as Row[]
}

/** An execute step inside {@link Steps}. */
export function* write(statement: Sql): Generator<Step, number, unknown> {
  return (yield { execute: statement }) as number
}
