/**
 * The store's statements on the app's Prisma client, as raw queries (see sql.ts): a batch is one
 * `$transaction([...])`, steps run in one interactive transaction. A statement that may be
 * repeated is sent again once after a lost connection (PostgreSQL through @prisma/adapter-pg,
 * whose pool handles its connections' error events itself).
 * @module
 */
import type { PrismaTaskClient } from './client.js'
import type { Executor, Run, Steps } from './executor.js'
import { isConnectionLoss } from './pg-executor.js'
import { execute, query, type Sql } from './sql.js'

export class PrismaExecutor implements Executor {
  readonly #db: PrismaTaskClient

  constructor(db: PrismaTaskClient) {
    this.#db = db
  }

  query<Row>(statement: Sql, run: Run = {}): Promise<Row[]> {
    return again(run, () => query<Row>(this.#db, statement))
  }

  execute(statement: Sql, run: Run = {}): Promise<number> {
    return again(run, () => execute(this.#db, statement))
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
        while (!next.done) next = it.next('query' in next.value ? await query(tx, next.value.query) : await execute(tx, next.value.execute))
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
