/**
 * The store's statements on the app's Prisma client, as raw queries (see sql.ts): a batch is one
 * `$transaction([...])`, steps run in one interactive transaction. A statement that may be
 * repeated is sent again once after a lost connection (PostgreSQL through @prisma/adapter-pg,
 * whose pool handles its connections' error events itself). On MySQL/MariaDB every statement is
 * rewritten to MySQL's syntax first (mysql-dialect.ts).
 * @module
 */
import type { PrismaTaskClient, RawClient } from './client.js'
import type { Executor, Run, Steps } from './executor.js'
import { returningParts, toMysql } from './mysql-dialect.js'
import { isConnectionLoss } from './pg-executor.js'
import { execute, query, type Sql } from './sql.js'

export class PrismaExecutor implements Executor {
  readonly #db: PrismaTaskClient
  readonly #mysql: boolean
  /** The statement as this client's database writes it. */
  readonly #dialect: (statement: Sql) => Sql

  constructor(db: PrismaTaskClient) {
    this.#db = db
    this.#mysql = (db as { _activeProvider?: string })._activeProvider === 'mysql'
    this.#dialect = this.#mysql ? toMysql : (statement) => statement
  }

  query<Row>(statement: Sql, run: Run = {}): Promise<Row[]> {
    if (this.#mysql && returningParts(statement)) return again(run, () => this.#db.$transaction((tx) => this.#read<Row>(tx, statement)))
    return again(run, () => query<Row>(this.#db, this.#dialect(statement)))
  }

  execute(statement: Sql, run: Run = {}): Promise<number> {
    return again(run, () => execute(this.#db, this.#dialect(statement)))
  }

  /** Rows of `statement` on `db`; on MySQL an UPDATE … RETURNING as the update, then the read of what it wrote (in `db`'s transaction). */
  async #read<Row>(db: RawClient, statement: Sql): Promise<Row[]> {
    const parts = this.#mysql ? returningParts(statement) : undefined
    if (!parts) return query<Row>(db, this.#dialect(statement))
    if ((await execute(db, toMysql(parts.update))) === 0) return []
    return query<Row>(db, toMysql(parts.read))
  }

  async batch(statements: readonly Sql[], run: Run = {}): Promise<void> {
    await this.batchThenRead(statements, run)
  }

  async batchThenRead<Row>(statements: readonly Sql[], run: Run = {}): Promise<Row[]> {
    const db = this.#db
    const results = await again(run, () => db.$transaction(statements.map((statement) => query<Row>(db, this.#dialect(statement)))))
    return (results.at(-1) ?? []) as Row[]
  }

  lostConnection(error: unknown): boolean {
    return isConnectionLoss(error)
  }

  transaction<R>(steps: () => Steps<R>): Promise<R> {
    return Promise.resolve(
      this.#db.$transaction(async (tx) => {
        const it = steps()
        let next = it.next()
        while (!next.done) next = it.next('query' in next.value ? await this.#read(tx, next.value.query) : await execute(tx, this.#dialect(next.value.execute)))
        return next.value
      }),
    )
  }
}

/** Once more after a lost connection when the statement may be repeated (the adapter's pool replaces the connection). */
async function again<T>(run: Run, attempt: () => PromiseLike<T>): Promise<T> {
  try {
    return await attempt()
  } catch (error) {
    if (!run.idempotent || !isConnectionLoss(error)) throw error
    return attempt()
  }
}
