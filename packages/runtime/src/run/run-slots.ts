/**
 * Per-owner bound on concurrent skill runs, so one caller cannot occupy the agent. Counted in this
 * process and, when the store's limit counters are shared by replicas (PostgresStore: the
 * A2ALimitEntry table, taken under an advisory lock on the owner's key), for the whole agent: a
 * run is an entry `runs owner <owner>` / `<replica> <taskId>` from its claim until it settles, paused, or is
 * settled by a sweep (its replica stopped). An entry no one released stops counting after the
 * longest a run may last (the task deadline and one lease).
 * @module
 */
import type { LimitCounters } from '../core/counters.js'
import { scrub, type Logger } from '../log/logger.js'
import { isStoreUnavailable } from '../store/unavailable.js'

/** The agent-wide count: the store's counters and how long an entry counts unless released. */
export interface SharedRunCount {
  counters: LimitCounters
  /** This process's id in run leases: a claim's entry is `<replica> <taskId>`, so a duplicate's claim elsewhere is its own. */
  replica: string
  ttlMs: number
  logger: Logger
}

const keyOf = (owner: string) => `runs owner ${owner}`

/** Pauses before each new try of a release that could not reach the database; the last repeats. */
const RELEASE_RETRY_MS = [100, 500, 1000, 2000, 5000]

export class RunSlots {
  readonly #inUse = new Map<string, number>()
  readonly #shared: SharedRunCount | undefined

  /** @param limit runs per owner; negative means unlimited. */
  constructor(
    readonly limit: number,
    shared?: SharedRunCount,
  ) {
    this.#shared = limit >= 0 ? shared : undefined
  }

  /**
   * Takes a slot for the owner's run of `taskId`, or answers false when the owner is at the cap:
   * at once when counted in this process only, else once the shared count has answered.
   */
  claim(owner: string, taskId: string): boolean | Promise<boolean> {
    const used = this.#inUse.get(owner) ?? 0
    if (this.limit >= 0 && used >= this.limit) return false
    this.#inUse.set(owner, used + 1)
    return this.#shared ? this.#claimShared(owner, taskId, this.#shared) : true
  }

  async #claimShared(owner: string, taskId: string, shared: SharedRunCount): Promise<boolean> {
    try {
      const take = await shared.counters.take(keyOf(owner), `${shared.replica} ${taskId}`, this.limit, shared.ttlMs)
      if (take.taken) return true
    } catch (error) {
      this.#releaseHere(owner)
      throw error
    }
    this.#releaseHere(owner)
    return false
  }

  /** Gives the slot of the owner's run of `taskId` back. */
  release(owner: string, taskId: string): void {
    this.#releaseHere(owner)
    if (this.#shared) this.releaseShared(owner, taskId, this.#shared.replica)
  }

  /**
   * Gives back the agent-wide place of a run of `runner`, another process (a sweep settled its
   * task). A release that cannot reach the database (its connection cut, as in a failover) is
   * tried again after growing pauses for as long as the entry would count anyway, so a slot is
   * held only while the database stays out of reach, not for the entry's whole lifetime.
   */
  releaseShared(owner: string, taskId: string, runner: string): void {
    if (this.#shared) this.#releaseShared(owner, taskId, runner, this.#shared, 0, 0)
  }

  #releaseShared(owner: string, taskId: string, runner: string, shared: SharedRunCount, attempt: number, waitedMs: number): void {
    shared.counters.release(keyOf(owner), `${runner} ${taskId}`).catch((error: unknown) => {
      const pause = RELEASE_RETRY_MS[Math.min(attempt, RELEASE_RETRY_MS.length - 1)]!
      if (!isStoreUnavailable(error) || waitedMs + pause >= shared.ttlMs) {
        shared.logger.warn(`a2a: releasing the run slot of task ${taskId} failed (it stops counting after ${shared.ttlMs} ms): ${scrub(error)}`)
        return
      }
      // Unref'd: a pending retry never holds a stopping process open; the entry's expiry bounds it then.
      setTimeout(() => this.#releaseShared(owner, taskId, runner, shared, attempt + 1, waitedMs + pause), pause).unref()
    })
  }

  #releaseHere(owner: string): void {
    const used = (this.#inUse.get(owner) ?? 1) - 1
    if (used <= 0) this.#inUse.delete(owner)
    else this.#inUse.set(owner, used)
  }
}
