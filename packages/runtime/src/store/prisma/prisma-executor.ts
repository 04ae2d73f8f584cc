/**
 * The store's statements on the app's Prisma client, as raw queries (see sql.ts): a batch is one
 * `$transaction([...])`, steps run in one interactive transaction.
 * @module
 */
import type { PrismaTaskClient } from './client.js'
import type { Executor, Steps } from './executor.js'
import { execute, query, type Sql } from './sql.js'

export class PrismaExecutor implements Executor {
  readonly #db: PrismaTaskClient

  constructor(db: PrismaTaskClient) {
    this.#db = db
  }

  async query<Row>(statement: Sql): Promise<Row[]> {
    return query<Row>(this.#db, statement)
  }

  async execute(statement: Sql): Promise<number> {
    return execute(this.#db, statement)
  }

  async batch(statements: readonly Sql[]): Promise<void> {
    const db = this.#db
    await db.$transaction(statements.map((statement) => execute(db, statement)))
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
