/**
 * What every run has, whatever its handler does: the task's latest record as the run knows it,
 * why the run stopped, the signal its handler is cut with, and how it settles, once: its slot
 * freed, its waiters woken, retention applied. Run writes (run-writes) and the handler's run
 * (task-run) build on it.
 * @module
 */
import type { ExchangeCore } from './exchange-core.js'
import type { TaskRecord } from '../store/store.js'
import { retain } from './retain.js'
import { Waiter } from './waiter.js'
import { forgetDeadline } from './run-deadlines.js'
import { RunEndedError, TaskCanceledError, type TaskTimeoutError } from './run-errors.js'

/** Why a run takes no more writes. */
export type Stop = { why: 'ended' } | { why: 'canceled' } | { why: 'timed-out'; error: TaskTimeoutError }

export abstract class RunControl {
  /** The task as this run last wrote or read it. */
  protected latest: TaskRecord
  protected stop: Stop | undefined
  /** Made when the handler first reads its signal: most never do. */
  #controller: AbortController | undefined
  #abortReason: Error | undefined
  /** The wait for the run's end, made when {@link done} is read before it: most runs end unwaited for. */
  #end: Waiter<TaskRecord> | undefined
  /** The record the run left behind, once settled. */
  #left: TaskRecord | undefined
  #finished = false

  constructor(
    protected readonly core: ExchangeCore,
    record: TaskRecord,
  ) {
    this.latest = record
  }

  /** Resolves with the record the run left behind once it has settled, paused, or been cut. */
  get done(): Promise<TaskRecord> {
    if (this.#left) return Promise.resolve(this.#left)
    return (this.#end ??= new Waiter<TaskRecord>()).promise
  }

  get record(): TaskRecord {
    return this.latest
  }

  get id(): string {
    return this.latest.id
  }

  /** Aborted when the run is cut (cancel, timeout, shutdown); already aborted if it was cut before this was read. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#abortReason) this.#controller.abort(this.#abortReason)
    }
    return this.#controller.signal
  }

  get finished(): boolean {
    return this.#finished
  }

  /** Throws what a write of the stopped run is told: why it stopped. */
  assertOpen(): void {
    const stop = this.stop
    if (!stop) return
    if (stop.why === 'timed-out') throw stop.error
    if (stop.why === 'canceled') throw new TaskCanceledError(this.id)
    throw new RunEndedError(this.id, this.latest.task.status.state)
  }

  /** Marks the run cut by a cancel the exchange already stored. */
  canceled(record: TaskRecord): void {
    if (this.stop) return
    this.stop = { why: 'canceled' }
    this.abort(new TaskCanceledError(this.id))
    void this.settle(record)
  }

  protected abort(reason: Error): void {
    this.#abortReason = reason
    this.#controller?.abort(reason)
  }

  /**
   * Releases the run's slot and wakes waiters; then applies retention (to a stored task), which
   * they do not wait for: a blocking send's answer waited on the store's trim, a round trip and
   * commit of its own (PostgresStore: a third of a send's latency). Runs once.
   */
  protected async settle(record: TaskRecord, stored = true): Promise<void> {
    if (this.#finished) return
    this.#finished = true
    this.stop ??= { why: 'ended' }
    forgetDeadline(this, this.core.limits.taskTimeoutMs)
    const runs: Map<string, RunControl> = this.core.runs
    if (runs.get(this.id) === this) runs.delete(this.id)
    this.core.slots.release(this.latest.owner, this.id)
    this.core.quota?.vacate(this.latest)
    this.latest = record
    this.#left = record
    this.#end?.resolve(record)
    // A stream of the task waits for this instead of the promise: no promise and reactions per stream.
    this.core.events.runEnded(this.id)
    if (stored) await retain(this.core, record)
  }
}
