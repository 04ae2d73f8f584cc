/**
 * The tables and columns the SQL stores' statements name, checked once when a store opens: an app
 * that upgraded the runtime without regenerating and migrating gets one error naming what is
 * missing and what to run, instead of `relation "A2ATaskEvent" does not exist` (or SQLite's "no
 * such table") answered as an internal error to every request.
 * @module
 */
import type { RequiredSchema } from './dialect.js'
import type { Executor, Run, Steps } from './executor.js'
import type { Sql } from './sql.js'

export type { RequiredSchema }

/**
 * What SqlStore's statements (statements.ts, artifact-files.ts) use: every store needs these.
 * schema-check.test.ts fails when a statement names a table or column that is not listed here.
 */
export const TASK_STORE_SCHEMA: RequiredSchema = {
  A2ATask: [
    'id',
    'contextId',
    'owner',
    'tenant',
    'scope',
    'skill',
    'version',
    'task',
    'messageIds',
    'repliedWithMessage',
    'createdAt',
    'updatedAt',
    'statusState',
    'statusTime',
    'runner',
    'leaseUntil',
  ],
  A2ATaskMessage: ['owner', 'messageId', 'taskId'],
  A2APushConfig: ['taskId', 'id', 'owner', 'url', 'token', 'authentication', 'createdAt'],
  A2AArtifactFile: ['taskId', 'id', 'owner', 'mediaType', 'filename', 'bytes', 'createdAt'],
}

/** PostgresStore's also keep events for other replicas (postgres/notifications.ts) and count limits (postgres/counters.ts). */
export const POSTGRES_STORE_SCHEMA: RequiredSchema = {
  ...TASK_STORE_SCHEMA,
  A2ATaskEvent: ['taskId', 'version', 'owner', 'event', 'createdAt'],
  A2ALimitEntry: ['key', 'id', 'createdAt', 'expiresAt'],
}

export interface FoundColumn {
  table: string
  column: string
}

/** The tables and columns of `required` the database lacks, as `A2ATaskEvent` (whole table) or `A2ATask.leaseUntil`. */
export function missingFrom(required: RequiredSchema, found: readonly FoundColumn[]): string[] {
  const present = new Set(found.map((row) => `${row.table}.${row.column}`))
  const tables = new Set(found.map((row) => row.table))
  return Object.entries(required).flatMap(([table, columns]) =>
    tables.has(table) ? columns.filter((column) => !present.has(`${table}.${column}`)).map((column) => `${table}.${column}`) : [table],
  )
}

/** The database lacks tables or columns the store's statements use: the app's schema is older than its runtime. */
export class TaskStoreSchemaError extends Error {
  readonly missing: readonly string[]

  constructor(store: string, missing: readonly string[]) {
    super(
      `${store}: the database lacks ${missing.join(', ')}, which this version of @a2a-agent/runtime uses. ` +
        // Most often the migrations exist and only were not applied (a fresh database, a pull): that command first.
        `If the app's prisma/migrations already create them, apply the migrations: npm run db:migrate. ` +
        `Otherwise the app's schema is older than its runtime: its tables come from prisma/a2a.prisma, so regenerate it and make a migration ` +
        `(npm run db:change -- --name <name>, which runs npx a2a generate entities and prisma migrate dev), then apply it wherever the app runs (npm run db:migrate).`,
    )
    this.name = 'TaskStoreSchemaError'
    this.missing = missing
  }
}

/** The columns of `required` the executor's database has (its dialect's catalog query). */
export const foundColumns = (db: Executor, required: RequiredSchema): Promise<FoundColumn[]> => db.query<FoundColumn>(db.dialect.columns(required), { idempotent: true })

/** Throws {@link TaskStoreSchemaError} when `found` lacks part of `required`. */
export function assertSchema(store: string, required: RequiredSchema, found: readonly FoundColumn[]): void {
  const missing = missingFrom(required, found)
  if (missing.length > 0) throw new TaskStoreSchemaError(store, missing)
}

/**
 * `executor` with every statement held until the schema check passed, so the first request of an
 * app whose database is too old fails with the check's error, not the database's. The check runs
 * at ready() or the first statement, whichever comes first, not at construction: an app (or test)
 * may make the store before it migrates. A missing table fails every statement alike; a check that
 * failed for a lost connection runs again at the next statement, as the statement would be retried.
 */
export class SchemaCheckedExecutor implements Executor {
  readonly #inner: Executor
  readonly dialect: Executor['dialect']
  readonly #check: () => Promise<void>
  #passed = false
  #pending: Promise<void> | undefined

  constructor(inner: Executor, check: () => Promise<void>) {
    this.#inner = inner
    this.dialect = inner.dialect
    this.#check = check
  }

  #run(): Promise<void> {
    return this.#check().then(
      () => void (this.#passed = true),
      (error: unknown) => {
        if (this.#inner.lostConnection?.(error)) this.#pending = undefined
        throw error
      },
    )
  }

  /** Resolves once the schema check passed; rejects with its error. */
  ready(): Promise<void> {
    return this.#passed ? Promise.resolve() : (this.#pending ??= this.#run())
  }

  /** `send` once the check passed (at once when it has): how every statement of the store waits for it. */
  afterCheck<R>(send: () => Promise<R>): Promise<R> {
    return this.#passed ? send() : this.ready().then(send)
  }

  query<Row>(statement: Sql, run?: Run): Promise<Row[]> {
    return this.afterCheck(() => this.#inner.query<Row>(statement, run))
  }

  execute(statement: Sql, run?: Run): Promise<number> {
    return this.afterCheck(() => this.#inner.execute(statement, run))
  }

  batch(statements: readonly Sql[], run?: Run): Promise<void> {
    return this.afterCheck(() => this.#inner.batch(statements, run))
  }

  batchThenRead<Row>(statements: readonly Sql[], run?: Run): Promise<Row[]> {
    return this.afterCheck(() => this.#inner.batchThenRead<Row>(statements, run))
  }

  transaction<R>(steps: () => Steps<R>): Promise<R> {
    return this.afterCheck(() => this.#inner.transaction(steps))
  }

  lostConnection(error: unknown): boolean {
    return this.#inner.lostConnection?.(error) ?? false
  }
}
