/**
 * Group commit for PostgresStore: the guarded writes that arrive within one turn of the event
 * loop (the task writes of every run that moved in it) are sent in one transaction on one
 * connection, BEGIN, the statements and COMMIT written together on a pipelining connection, and
 * each is answered only once that transaction committed. One commit, one WAL flush, and one turn
 * at the lock a notifying commit takes (pg_notify serializes commits across the database) for the
 * lot, where each write alone paid them all.
 *
 * The writes of a group are independent (different callers), so a failure of one must not fail
 * the others: when any statement fails the transaction rolls back as a whole (COMMIT answers
 * ROLLBACK) and each statement is sent again alone, getting its own answer. A lost connection
 * fails the group with the loss, and each write's caller reads back what landed, as it does for
 * a write sent alone.
 * @module
 */
import type { PgClient, PgPool, QueryConfig, QueryResult } from './pg-executor.js'

interface Grouped {
  config: QueryConfig
  resolve(result: QueryResult): void
  reject(error: unknown): void
}

/** Statements per transaction; a larger turn's writes go in several, in parallel. */
const MAX_GROUP = 64

export class GroupCommit {
  readonly #pool: PgPool
  readonly #lost: (error: unknown) => boolean
  #waiting: Grouped[] = []

  constructor(pool: PgPool, lost: (error: unknown) => boolean) {
    this.#pool = pool
    this.#lost = lost
  }

  send(config: QueryConfig): Promise<QueryResult> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => this.#flush())
      this.#waiting.push({ config, resolve, reject })
    })
  }

  #flush(): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (let i = 0; i < waiting.length; i += MAX_GROUP) void this.#commit(waiting.slice(i, i + MAX_GROUP))
  }

  async #commit(group: Grouped[]): Promise<void> {
    if (group.length === 1) return this.#alone(group[0]!)
    let client: PgClient
    try {
      client = await this.#pool.connect()
    } catch (error) {
      for (const grouped of group) grouped.reject(error)
      return
    }
    let broken: unknown
    try {
      const settled = await Promise.allSettled([
        client.query({ text: 'BEGIN', values: [] }),
        ...group.map((grouped) => client.query(grouped.config)),
        client.query({ text: 'COMMIT', values: [] }),
      ])
      const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
      const commit = settled.at(-1) as PromiseSettledResult<QueryResult & { command?: string }>
      if (!failed && commit.status === 'fulfilled' && commit.value.command === 'COMMIT') {
        group.forEach((grouped, i) => grouped.resolve((settled[i + 1] as PromiseFulfilledResult<QueryResult>).value))
        return
      }
      if (failed && this.#lost(failed.reason)) {
        broken = failed.reason
        for (const grouped of group) grouped.reject(failed.reason)
        return
      }
      // A statement failed, so nothing was committed: each again alone, for its own answer.
      if (failed) await client.query({ text: 'ROLLBACK', values: [] }).catch((error: unknown) => (broken = error))
    } finally {
      // A connection whose transaction could not end is in no state to serve anyone: destroy it.
      client.release(broken !== undefined ? (broken as Error) : undefined)
    }
    await Promise.all(group.map((grouped) => this.#alone(grouped)))
  }

  async #alone(grouped: Grouped): Promise<void> {
    try {
      grouped.resolve(await this.#pool.query(grouped.config))
    } catch (error) {
      grouped.reject(error)
    }
  }
}
