/**
 * Run leases: no task is left behind by a process that stopped. A run's task carries a lease in
 * the store (this replica's id and an expiry), written with the task when the run is claimed and
 * renewed, for every live run of the replica at once, while it works. Every replica sweeps at
 * start-up and then periodically: a submitted or working task whose lease expired (its replica
 * stopped, or lost the database for longer than a lease) is settled FAILED with a status message
 * saying so, and the settling replica publishes that final event to its subscribers and push
 * configs. The version guard decides the race with a run that comes back late: whichever writes
 * first wins, and the other's write is refused, so a task is never run on after it was settled.
 *
 * Cost: no statement per send (the lease is a column of the insert or resume write); one UPDATE
 * per replica every third of a lease for all its live runs; one indexed SELECT per sweep.
 * @module
 */
import type { BackgroundService } from '../core/background-service.js'
import type { ExchangeCore } from './exchange-core.js'
import { scrub } from '../log/logger.js'
import type { RunLease, TaskRecord } from '../store/store.js'
import { writeTask } from '../store/write.js'
import { capabilityOf } from '../store/capabilities.js'
import type { TaskState } from '../wire/types.js'
import { retain } from './retain.js'
import { agentMessage, withStatus, type Transition } from './task-changes.js'

/** Tasks settled per sweep query; a sweep goes on while queries come back full. */
const SWEEP_BATCH = 100

const RUNNING: ReadonlySet<TaskState> = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'])

const stoppedMessage = (state: TaskState): string =>
  state === 'TASK_STATE_SUBMITTED'
    ? 'The agent stopped before it could start on this task (its process ended); send the message again to retry.'
    : 'The agent stopped while working on this task (its process ended or lost its database); send the message again to retry.'

const unref = (timer: NodeJS.Timeout): NodeJS.Timeout => timer.unref()

/** A fresh lease of this replica: what a run's claiming write stores. */
export const freshLease = (core: Pick<ExchangeCore, 'replica' | 'leaseMs'>): RunLease => ({ runner: core.replica, until: Date.now() + core.leaseMs })

/** Renews this replica's leases and sweeps the expired ones of every replica, on timers. */
export class RunLeases {
  readonly #core: ExchangeCore
  #renewer: NodeJS.Timeout | undefined
  #sweeper: NodeJS.Timeout | undefined
  #sweeping: Promise<void> | undefined

  constructor(core: ExchangeCore) {
    this.#core = core
  }

  /** Renews this replica's leases every third of a lease; the sweep has its own switch ({@link sweeper}). */
  start(): void {
    this.#renewer ??= unref(setInterval(() => void this.renew(), Math.max(Math.floor(this.#core.leaseMs / 3), 1)))
  }

  stop(): void {
    clearInterval(this.#renewer)
    this.#renewer = undefined
    this.sweeper.stop()
  }

  /**
   * The sweep alone, on its own switch: now (start-up), then every quarter of a lease. Any one
   * replica sweeping is enough, so serve() leaves it to the worker role; renewing stays with the runs.
   */
  readonly sweeper: BackgroundService = {
    start: (): void => {
      if (this.#sweeper) return
      void this.sweep()
      this.#sweeper = unref(setInterval(() => void this.sweep(), Math.max(Math.floor(this.#core.leaseMs / 4), 1)))
    },
    stop: (): void => {
      clearInterval(this.#sweeper)
      this.#sweeper = undefined
    },
  }

  /** Moves the lease of every live run of this replica on; a failure is logged, and retried at the next tick. */
  async renew(): Promise<void> {
    const { runs, replica, leaseMs, logger } = this.#core
    const leases = capabilityOf(this.#core.store, 'leases')
    if (!leases || runs.size === 0) return
    try {
      await leases.renewLeases(replica, [...runs.keys()], Date.now() + leaseMs)
    } catch (error) {
      logger.warn(`a2a: renewing the leases of ${runs.size} runs failed (retried in ${Math.floor(leaseMs / 3)} ms): ${scrub(error)}`)
    }
  }

  /** Settles every task whose lease expired; one sweep at a time per replica. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined))
    return this.#sweeping
  }

  async #sweep(): Promise<void> {
    const { logger } = this.#core
    const leases = capabilityOf(this.#core.store, 'leases')
    if (!leases) return
    try {
      for (;;) {
        const now = Date.now()
        const expired = (await leases.expiredRuns(now, SWEEP_BATCH)).filter((record) => !this.#core.runs.has(record.id))
        for (const record of expired) await this.#settle(record, now)
        if (expired.length < SWEEP_BATCH) return
      }
    } catch (error) {
      logger.warn(`a2a: sweeping tasks of stopped runs failed (retried at the next sweep): ${scrub(error)}`)
    }
  }

  async #settle(record: TaskRecord, now: number): Promise<void> {
    const core = this.#core
    let event: Transition['event'] | undefined
    const outcome = await writeTask(core.store, record, (current) => {
      const state = current.task.status.state
      // Settled meanwhile, run here, or renewed since the sweep read it: not abandoned.
      if (!RUNNING.has(state) || core.runs.has(current.id) || (current.lease?.until ?? -Infinity) >= now) return null
      const next = withStatus(current.task, 'TASK_STATE_FAILED', agentMessage(current.task, stoppedMessage(state)))
      event = next.event
      return { task: next.task, event: next.event, lease: null }
    })
    if (!('written' in outcome) || !event) return
    // The stopped run's place in the owner's agent-wide run count goes with it.
    if (record.lease) core.slots.releaseShared(record.owner, record.id, record.lease.runner)
    core.logger.warn(
      `a2a: task ${outcome.written.id} was left ${record.task.status.state} by a stopped run (${record.lease ? `replica ${scrub(record.lease.runner, 64)}` : 'no lease'}); settled FAILED`,
    )
    core.events.publish({ taskId: outcome.written.id, version: outcome.written.version, response: event })
    await retain(core, outcome.written)
  }
}
