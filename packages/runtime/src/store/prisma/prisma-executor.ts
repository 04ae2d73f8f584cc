/**
 * The store's statements on the app's Prisma client, as raw queries (see sql.ts): a batch is one
 * `$transaction([...])`, steps run in one interactive transaction. A statement that may be
 * repeated is sent again once after a lost connection (PostgreSQL through @prisma/adapter-pg,
 * whose pool handles its connections' error events itself). MySQL/MariaDB has no UPDATE …
 * RETURNING: the update and the read of what it wrote go in one transaction.
 * @module
 */
import type { PrismaTaskClient, RawClient } from '../sql/client.js'
import type { Executor, Run, Steps } from '../sql/executor.js'
import { isConnectionLoss } from '../sql/postgres/executor.js'
import { execute, isMysql, query, type Sql } from '../sql/sql.js'
import { returningParts } from '../sql/statements.js'

export class PrismaExecutor implements Executor {
  readonly #db: PrismaTaskClient
  /** No UPDATE … RETURNING: see {@link #read}. */
  readonly #mysql: boolean

  constructor(db: PrismaTaskClient) {
    this.#db = db
    this.#mysql = isMysql(db)
  }

  query<Row>(statement: Sql, run: Run = {}): Promise<Row[]> {
    if (this.#mysql && returningParts(statement)) return again(run, () => this.#db.$transaction((tx) => this.#read<Row>(tx, statement)))
    return again(run, () => query<Row>(this.#db, statement))
  }

  execute(statement: Sql, run: Run = {}): Promise<number> {
    return again(run, () => execute(this.#db, statement))
  }

  /** Rows of `statement` on `db`; on MySQL an UPDATE … RETURNING as the update, then the read of what it wrote (in `db`'s transaction). */
  async #read<Row>(db: RawClient, statement: Sql): Promise<Row[]> {
    const parts = this.#mysql ? returningParts(statement) : undefined
    if (!parts) return query<Row>(db, statement)
    if ((await execute(db, parts.update)) === 0) return []
    return query<Row>(db, parts.read)
  }

  async batch(statements: readonly Sql[], run: Run = {}): Promise<void> {
    await this.batchThenRead(statements, run)
  }

  async batchThenRead<Row>(statements: readonly Sql[], run: Run = {}): Promise<Row[]> {
    const db = this.#db
    const results = await again(run, () => db.$transaction(statements.map((statement) => query<Row>(db, statement))))
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
        while (!next.done) next = it.next('query' in next.value ? await this.#read(tx, next.value.query) : await execute(tx, next.value.execute))
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
