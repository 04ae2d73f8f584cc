/**
 * PrismaStore's logic and SQL on a better-sqlite3 connection of the store's own, to the app's
 * SQLite database file: the same tables, rows either store (or the app's Prisma models) can read.
 * better-sqlite3 is an optional peer dependency, loaded only when a SqliteStore is made, so apps on
 * PostgreSQL never load it.
 * @module
 */
import { createRequire } from 'node:module'
import { SqliteExecutor, type Connection } from './executor.js'
import { SQL_CAPABILITIES, SqlStore } from '../sql-store.js'
import { tracedExecutor } from '../traced-executor.js'
import { assertSchema, TASK_STORE_SCHEMA, type FoundColumn } from '../schema-check.js'
import { SQLITE } from '../dialect.js'
import type { CapabilityName } from '../../capabilities.js'

export interface SqliteStoreOptions {
  /**
   * How long a write waits, in ms, while another connection holds the write lock, retrying
   * between sleeps (never a blocking wait) before it fails. Default 5000.
   */
  busyTimeoutMs?: number
}

/** The file a Prisma SQLite URL names, as Prisma's better-sqlite3 adapter reads it. */
function databaseFile(url: string): string {
  const file = url.replace(/^file:/, '')
  if (file === '' || file.startsWith(':memory:')) {
    throw new Error(
      `SqliteStore needs a database file, not ${JSON.stringify(url)}: an in-memory SQLite database lives inside one connection, ` +
        `and this store opens a second one, which would see a different, empty database. Use PrismaStore on the app's client instead.`,
    )
  }
  return file
}

type Driver = new (file: string, options: { fileMustExist: boolean; timeout: number }) => Connection

function loadDriver(): Driver {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as Driver
  } catch (error) {
    throw new Error('SqliteStore needs the better-sqlite3 package: npm install better-sqlite3', { cause: error })
  }
}

function openFile(Database: Driver, file: string, url: string): Connection {
  try {
    return new Database(file, { fileMustExist: true, timeout: 0 })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(
      `SqliteStore cannot open the database file ${JSON.stringify(file)} (from ${JSON.stringify(url)}): ${reason}. ` +
        `Create it with the app's migrations first (npm run db:migrate), or check the path; it is relative to the working directory.`,
      { cause: error },
    )
  }
}

/** Throws a TaskStoreSchemaError (closing `db`) when the file lacks a table or column the store uses. */
function checkSchema(db: Connection): void {
  const query = SQLITE.columns(TASK_STORE_SCHEMA)
  try {
    assertSchema('SqliteStore', TASK_STORE_SCHEMA, db.prepare(query.sql).all(...query.values) as FoundColumn[])
  } catch (error) {
    db.close()
    throw error
  }
}

export class SqliteStore extends SqlStore {
  /** One process serves a SQLite file: a new task may be held until its run's first turn ends (store.ts). */
  override readonly capabilities: readonly CapabilityName[] = [...SQL_CAPABILITIES, 'oneProcess']
  readonly #db: Connection
  readonly #executor: SqliteExecutor

  /**
   * `url`: the app's SQLite URL (`file:./dev.db`, relative to the working directory as Prisma's
   * adapter takes it) or a path. The file must exist: a mistyped path would otherwise become a
   * new, empty database without the tables. It must have every table and column the store uses,
   * or the constructor throws a TaskStoreSchemaError naming what is missing (see schema-check.ts).
   */
  constructor(url: string, options: SqliteStoreOptions = {}) {
    const file = databaseFile(url)
    const Database = loadDriver()
    // timeout 0: never a blocking wait in this thread; the executor retries SQLITE_BUSY itself.
    const db = openFile(Database, file, url)
    checkSchema(db)
    const executor = new SqliteExecutor(db, file, options.busyTimeoutMs ?? 5000)
    super(tracedExecutor(executor, 'sqlite'))
    this.#db = db
    this.#executor = executor
  }

  /** Resolves at once: the constructor already checked the file's tables and columns, as PostgresStore's ready() does. */
  ready(): Promise<void> {
    return Promise.resolve()
  }

  /** Closes the store's connection; the app's Prisma client is not touched. */
  close(): void {
    // Writes still waiting for their sync get it first.
    this.#executor.close()
    this.#db.close()
  }
}
