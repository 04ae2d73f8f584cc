/**
 * The store's statements on the app's Prisma client, as raw queries (see raw.ts): a batch is one
 * `$transaction([...])`, steps run in one interactive transaction. A statement that may be
 * repeated is sent again once after a lost connection (PostgreSQL through @prisma/adapter-pg,
 * whose pool handles its connections' error events itself). Its dialect is the client's provider's;
 * where that has no UPDATE … RETURNING (MySQL/MariaDB) the update and the read of what it wrote go
 * in one transaction.
 * @module
 */
import type { PrismaTaskClient, RawClient } from './client.js'
import type { Executor, Run, Steps } from '../sql/executor.js'
import { isConnectionLoss } from '../sql/postgres/executor.js'
import type { Dialect } from '../sql/dialect.js'
import { dialectOf, execute, query } from './raw.js'
import type { Sql } from '../sql/sql.js'
import { returningParts } from '../sql/statements.js'

export class PrismaExecutor implements Executor {
  readonly #db: PrismaTaskClient
  readonly dialect: Dialect

  constructor(db: PrismaTaskClient) {
    this.#db = db
    this.dialect = dialectOf(db)
  }

  query<Row>(statement: Sql, run: Run = {}): Promise<Row[]> {
    if (!this.dialect.updateReturning && returningParts(statement)) return again(run, () => this.#db.$transaction((tx) => this.#read<Row>(tx, statement)))
    return again(run, () => query<Row>(this.#db, statement, this.dialect))
  }

  execute(statement: Sql, run: Run = {}): Promise<number> {
    return again(run, () => execute(this.#db, statement, this.dialect))
  }

  /** Rows of `statement` on `db`; without UPDATE … RETURNING, such an update as the update, then the read of what it wrote (in `db`'s transaction). */
  async #read<Row>(db: RawClient, statement: Sql): Promise<Row[]> {
    const parts = this.dialect.updateReturning ? undefined : returningParts(statement)
    if (!parts) return query<Row>(db, statement, this.dialect)
    if ((await execute(db, parts.update, this.dialect)) === 0) return []
    return query<Row>(db, parts.read, this.dialect)
  }

  async batch(statements: readonly Sql[], run: Run = {}): Promise<void> {
    await this.batchThenRead(statements, run)
  }

  async batchThenRead<Row>(statements: readonly Sql[], run: Run = {}): Promise<Row[]> {
    const db = this.#db
    const results = await again(run, () => db.$transaction(statements.map((statement) => query<Row>(db, statement, this.dialect))))
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
        while (!next.done) next = it.next('query' in next.value ? await this.#read(tx, next.value.query) : await execute(tx, next.value.execute, this.dialect))
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
