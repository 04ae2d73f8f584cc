/**
 * New tasks claimed before their run starts and inserted when its first turn ends, in one
 * transaction: PostgresStore's way to store a quick run's task once, in its final state, where
 * replicas share the database. The claims that arrive within one turn of the event loop (the
 * message-index rows of the new tasks) are sent with BEGIN in one round trip, on one connection,
 * and the transaction stays open while the claimed runs' first turns last; their inserts then go
 * with COMMIT in a second trip. So a claim and its task commit together (a process that dies in
 * between leaves neither), and a replica given the same message at once waits at the claim's row
 * for that commit, then finds it taken and never starts the handler.
 *
 * The group waits for every claim it granted to be inserted or released, at most `waitMs`: a
 * first turn ends within a turn of the event loop, so only a handler that computes for long
 * without awaiting is waited out; its claim is then undone in the group's transaction and its
 * insert comes later on its own (insert resolves false, as it does whenever the claim did not
 * commit with its task: the caller then claims and inserts in one statement).
 * @module
 */
import { connectFor, inOneTrip } from './group-commit.js'
import type { PgClient, PgPool, QueryConfig, QueryResult } from './executor.js'

export interface HeldClaim<S> {
  /**
   * Inserts in the claim's transaction and commits it with the group's other inserts: true once
   * committed; false when the claim was not (its wait ran out, or the group's commit failed on
   * another's statement): nothing of it is stored. Rejects with a lost connection, when the
   * commit may have landed.
   */
  insert(statement: S): Promise<boolean>
  /** Gives the claim up: its rows are deleted in its transaction. */
  release(): void
}

interface Claiming<S> {
  claim: QueryConfig
  undo: QueryConfig
  resolve(held: HeldClaim<S> | undefined): void
  reject(error: unknown): void
}

/** Claims per transaction, as postgres/group-commit.ts's MAX_GROUP. */
const MAX_GROUP = 64

/** How long a group waits for its claims' inserts: far past a first turn that awaits anything. */
const CLAIM_WAIT_MS = 1000

const BEGIN: QueryConfig = { text: 'BEGIN', values: [] }
const ROLLBACK: QueryConfig = { text: 'ROLLBACK', values: [] }

/** One granted claim, until its insert or release decides what its transaction commits. */
class Granted<S> implements HeldClaim<S> {
  /** The statement the group commits for it: its insert, or the undo of its claim (released, or its wait ran out). */
  statement: QueryConfig | undefined
  readonly #configOf: (statement: S) => QueryConfig
  readonly #decided: () => void
  readonly #undo: QueryConfig
  #answer: { resolve(stored: boolean): void; reject(error: unknown): void } | undefined

  constructor(configOf: (statement: S) => QueryConfig, undo: QueryConfig, decided: () => void) {
    this.#configOf = configOf
    this.#undo = undo
    this.#decided = decided
  }

  /** Decided already (released, inserted, or its wait ran out): not the group's to commit. */
  insert(statement: S): Promise<boolean> {
    if (this.statement) return Promise.resolve(false)
    this.statement = this.#configOf(statement)
    const answered = new Promise<boolean>((resolve, reject) => (this.#answer = { resolve, reject }))
    this.#decided()
    return answered
  }

  release(): void {
    if (this.statement) return
    this.statement = this.#undo
    this.#decided()
  }

  /** The group's commit ran out its wait: the claim is undone in it. */
  expire(): void {
    this.statement ??= this.#undo
  }

  answer(outcome: { stored: boolean } | { error: unknown }): void {
    if ('error' in outcome) this.#answer?.reject(outcome.error)
    else this.#answer?.resolve(outcome.stored)
  }
}

/** Claims and inserts of statements of type `S`, sent as the QueryConfig `configOf` makes of each. */
export class HeldInserts<S> {
  readonly #pool: PgPool
  readonly #lost: (error: unknown) => boolean
  readonly #configOf: (statement: S) => QueryConfig
  readonly #waitMs: number
  #waiting: Claiming<S>[] = []

  constructor(pool: PgPool, lost: (error: unknown) => boolean, configOf: (statement: S) => QueryConfig, waitMs = CLAIM_WAIT_MS) {
    this.#pool = pool
    this.#lost = lost
    this.#configOf = configOf
    this.#waitMs = waitMs
  }

  /**
   * Sends `claim` (an insert of the task's message-index rows that inserts none when the id is
   * taken) in this turn's claiming transaction: resolves undefined when it inserted nothing, else
   * the claim, which the caller must insert or release. `undo` deletes what the claim inserted.
   */
  claim(claim: S, undo: S): Promise<HeldClaim<S> | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => this.#flush())
      this.#waiting.push({ claim: this.#configOf(claim), undo: this.#configOf(undo), resolve, reject })
    })
  }

  #flush(): void {
    const waiting = this.#waiting
    this.#waiting = []
    for (let i = 0; i < waiting.length; i += MAX_GROUP) void this.#open(waiting.slice(i, i + MAX_GROUP), false)
  }

  async #open(group: Claiming<S>[], retried: boolean): Promise<void> {
    const client = await connectFor(this.#pool, group)
    if (!client) return
    const answers = await Promise.allSettled([BEGIN, ...group.map((claiming) => claiming.claim)].map((config) => client.query(config)))
    const failed = answers.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected')
    if (failed) {
      let broken = this.#lost(failed.reason) ? failed.reason : undefined
      if (broken === undefined) await client.query(ROLLBACK).catch((error: unknown) => (broken = error))
      client.release(broken as Error | undefined)
      // Nothing was committed: the claims are sent again, once on a fresh connection after a
      // loss, each alone after a statement failed (a deadlock between two replicas' groups, say).
      if (broken !== undefined && !retried) return this.#open(group, true)
      if (broken !== undefined || group.length === 1) for (const claiming of group) claiming.reject(failed.reason)
      else for (const claiming of group) void this.#open([claiming], retried)
      return
    }
    const granted: Granted<S>[] = []
    let undecided = 0
    let allDecided: () => void = () => {}
    const decided = new Promise<void>((resolve) => (allDecided = resolve))
    const onDecided = () => --undecided === 0 && allDecided()
    group.forEach((claiming, i) => {
      const { rowCount } = (answers[i + 1] as PromiseFulfilledResult<QueryResult>).value
      if (!rowCount) return claiming.resolve(undefined)
      const claim = new Granted(this.#configOf, claiming.undo, onDecided)
      granted.push(claim)
      undecided++
      claiming.resolve(claim)
    })
    if (granted.length > 0) await this.#decisions(decided, granted)
    await this.#commit(client, granted)
  }

  /** Until every granted claim is decided, or the wait runs out and the rest are undone. */
  async #decisions(decided: Promise<void>, granted: Granted<S>[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([decided, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#waitMs).unref()))])
    clearTimeout(timer)
    for (const claim of granted) claim.expire()
  }

  async #commit(client: PgClient, granted: Granted<S>[]): Promise<void> {
    let broken: unknown
    try {
      const outcome = await inOneTrip(
        client,
        granted.map((claim) => claim.statement!),
        { begun: true },
      )
      if ('results' in outcome) return granted.forEach((claim) => claim.answer({ stored: true }))
      if (this.#lost(outcome.failed)) {
        broken = outcome.failed
        return granted.forEach((claim) => claim.answer({ error: outcome.failed }))
      }
      // A statement failed, so nothing was committed: each inserts alone.
      granted.forEach((claim) => claim.answer({ stored: false }))
    } finally {
      // A connection whose transaction could not end is in no state to serve anyone: destroy it.
      client.release(broken as Error | undefined)
    }
  }
}
