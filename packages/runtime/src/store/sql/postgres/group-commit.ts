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
import type { PgClient, PgPool, QueryConfig, QueryResult } from './executor.js'

interface Grouped {
  config: QueryConfig
  resolve(result: QueryResult): void
  reject(error: unknown): void
}

/**
 * BEGIN, the statements and COMMIT written together on one connection (the pool pipelines): one
 * round trip; `begun`: the transaction is open already, so no BEGIN. A failed statement aborts
 * the transaction, so the ones after it fail too and COMMIT answers ROLLBACK: the first failure
 * is the answer, nothing was committed, and the connection is idle again. Otherwise each
 * statement's result, in order.
 */
export async function inOneTrip(client: PgClient, configs: readonly QueryConfig[], { begun = false } = {}): Promise<{ results: QueryResult[] } | { failed: unknown }> {
  const sent = [...(begun ? [] : [{ text: 'BEGIN', values: [] }]), ...configs, { text: 'COMMIT', values: [] }]
  const settled = await Promise.allSettled(sent.map((config) => client.query(config)))
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
  if (failed) return { failed: failed.reason }
  const results = (settled as PromiseFulfilledResult<QueryResult & { command?: string }>[]).map((outcome) => outcome.value)
  const commit = results.at(-1)!
  return commit.command === 'COMMIT' ? { results: results.slice(begun ? 0 : 1, -1) } : { failed: new Error(`COMMIT answered ${commit.command}`) }
}

/** A connection for a group of waiters, or none when it could not be had: then each was rejected with why. */
export async function connectFor(pool: PgPool, group: readonly { reject(error: unknown): void }[]): Promise<PgClient | undefined> {
  try {
    return await pool.connect()
  } catch (error) {
    for (const waiter of group) waiter.reject(error)
    return undefined
  }
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
    const client = await connectFor(this.#pool, group)
    if (!client) return
    let broken: unknown
    try {
      const outcome = await inOneTrip(
        client,
        group.map((grouped) => grouped.config),
      )
      if ('results' in outcome) {
        group.forEach((grouped, i) => grouped.resolve(outcome.results[i]!))
        return
      }
      if (this.#lost(outcome.failed)) {
        broken = outcome.failed
        for (const grouped of group) grouped.reject(outcome.failed)
        return
      }
      // A statement failed, so nothing was committed: each again alone, for its own answer.
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
