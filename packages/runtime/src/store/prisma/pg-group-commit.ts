/**
 * Group commit for PostgresStore: guarded writes (the task writes of every run that moved) are
 * sent in one transaction on one connection, BEGIN, the statements and COMMIT written together on
 * a pipelining connection, and each is answered only once that transaction committed. One
 * commit, one WAL flush, and one turn at the lock a notifying commit takes (pg_notify serializes
 * commits across the database) for the lot, where each write alone paid them all.
 *
 * The group commit keeps a few connections of the pool for its own ("lanes"), each carrying one
 * transaction at a time: the writes that arrive while every lane's commit is in flight wait and
 * go together in the next free lane's transaction, so the busier the store, the larger the
 * groups, and the fewer commits, round trips and syscalls per write. A lane is held for the
 * store's life, which also spares each group the pool's checkout and return.
 *
 * The writes of a group are independent (different callers), so a failure of one must not fail
 * the others: when any statement fails the transaction rolls back as a whole (COMMIT answers
 * ROLLBACK) and each statement is sent again alone, getting its own answer. A lost connection
 * fails the group with the loss (its lane is given up and another opened at the next group), and
 * each write's caller reads back what landed, as it does for a write sent alone.
 * @module
 */
import type { PgClient, PgPool, Queries, QueryConfig, QueryResult } from './pg-executor.js'
import { BEGIN, COMMIT, run } from './pg-query.js'

interface Grouped {
  config: QueryConfig
  resolve(result: QueryResult): void
  reject(error: unknown): void
}

/** A connection of the group commit's own, and whether a group is in flight on it. */
interface Lane {
  client: PgClient
  busy: boolean
  /** Set once the connection went back to the pool (or was destroyed): it carries nothing more. */
  gone: boolean
}

/** Statements per transaction at most; more waiting go in the next free lane's. */
const MAX_GROUP = 64

export class GroupCommit {
  readonly #pool: PgPool
  readonly #lost: (error: unknown) => boolean
  readonly #queries: Queries
  /** Lanes at most; with `keep` false each lane goes back to the pool after its group. */
  readonly #size: number
  readonly #keep: boolean
  readonly #lanes: Lane[] = []
  #opening = 0
  #waiting: Grouped[] = []
  #scheduled = false
  /** Resolves close() once nothing waits or is in flight. */
  #idle: (() => void) | undefined

  /**
   * `lanes`: connections kept out of the pool for group commits (fewer than the pool's size, so
   * reads and transactions always get one); 0 takes one from the pool per group instead, and
   * gives it back after.
   */
  constructor(pool: PgPool, lost: (error: unknown) => boolean, lanes: number, queries: Queries) {
    this.#pool = pool
    this.#lost = lost
    this.#queries = queries
    // Without lanes, every group takes a connection of the pool for itself: as many in flight as the pool holds.
    this.#size = lanes > 0 ? lanes : Number.POSITIVE_INFINITY
    this.#keep = lanes > 0
  }

  send(config: QueryConfig): Promise<QueryResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ config, resolve, reject })
      if (this.#scheduled) return
      // Every write of this turn of the event loop joins the group.
      this.#scheduled = true
      setImmediate(() => {
        this.#scheduled = false
        this.#dispatch()
      })
    })
  }

  /** Waits for what was sent, then gives the lanes back to the pool (before the pool ends). */
  async close(): Promise<void> {
    if (this.#waiting.length > 0 || this.#opening > 0 || this.#lanes.some((lane) => lane.busy)) await new Promise<void>((resolve) => (this.#idle = resolve))
    for (const lane of [...this.#lanes]) this.#giveBack(lane)
  }

  #dispatch(): void {
    while (this.#waiting.length > 0) {
      const lane = this.#lanes.find((candidate) => !candidate.busy)
      if (!lane) {
        if (this.#lanes.length + this.#opening < this.#size) void this.#open()
        return
      }
      void this.#commit(lane, this.#waiting.splice(0, MAX_GROUP))
    }
    if (this.#opening === 0 && !this.#scheduled && !this.#lanes.some((candidate) => candidate.busy)) this.#idle?.()
  }

  async #open(): Promise<void> {
    this.#opening++
    let client: PgClient
    try {
      client = await this.#pool.connect()
    } catch (error) {
      this.#opening--
      // No lane to carry them: the writes fail as a write sent alone would.
      if (this.#lanes.length === 0) for (const grouped of this.#waiting.splice(0)) grouped.reject(error)
      return this.#dispatch()
    }
    this.#opening--
    const lane: Lane = { client, busy: false, gone: false }
    // The pool's guard logs the loss; the lane is given up at once, not reused.
    client.on('error', (error: Error) => this.#giveBack(lane, error))
    this.#lanes.push(lane)
    this.#dispatch()
  }

  /** The lane's connection back to the pool, destroyed when `broken` says it is in no state to serve. */
  #giveBack(lane: Lane, broken?: Error | boolean): void {
    if (lane.gone) return
    lane.gone = true
    this.#lanes.splice(this.#lanes.indexOf(lane), 1)
    lane.client.release(broken)
  }

  async #commit(lane: Lane, group: Grouped[]): Promise<void> {
    lane.busy = true
    try {
      if (group.length === 1) return await this.#alone(lane, group[0]!)
      const send = (config: QueryConfig) => run(lane.client, this.#queries(config))
      const settled = await Promise.allSettled([send(BEGIN), ...group.map((grouped) => send(grouped.config)), send(COMMIT)])
      const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
      const commit = settled.at(-1) as PromiseSettledResult<QueryResult>
      if (!failed && commit.status === 'fulfilled' && commit.value.command === 'COMMIT') {
        group.forEach((grouped, i) => grouped.resolve((settled[i + 1] as PromiseFulfilledResult<QueryResult>).value))
        return
      }
      if (failed && this.#lost(failed.reason)) {
        this.#giveBack(lane, failed.reason as Error)
        for (const grouped of group) grouped.reject(failed.reason)
        return
      }
      // A statement failed, so the transaction rolled back (COMMIT answers ROLLBACK): each again alone, for its own answer.
      await Promise.all(group.map((grouped) => this.#alone(lane, grouped)))
    } finally {
      lane.busy = false
      if (!this.#keep) this.#giveBack(lane)
      this.#dispatch()
    }
  }

  async #alone(lane: Lane, grouped: Grouped): Promise<void> {
    if (lane.gone) return void grouped.reject(new Error('Connection terminated: the group commit lost its connection'))
    try {
      grouped.resolve(await run(lane.client, this.#queries(grouped.config)))
    } catch (error) {
      if (this.#lost(error)) this.#giveBack(lane, error as Error)
      grouped.reject(error)
    }
  }
}
