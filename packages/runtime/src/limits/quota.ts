/**
 * Limits for unattended callers, checked when a message starts a turn and before anything is
 * written: fresh turns per sliding hour (per owner, or per tenant), and tasks occupying a run at
 * once (SUBMITTED or WORKING) per tenant. Refusals are HTTP 429; the turn cap's carries a real
 * Retry-After, the seconds until the oldest counted turn leaves the window. Answering a paused
 * task starts no turn, so it is never refused, though its run occupies a place while it works.
 * @module
 */
import type { Viewer } from '../core/principal.js'
import { HttpRefusal } from '../core/http-refusal.js'
import type { Logger } from '../log/logger.js'
import { scrub } from '../log/logger.js'
import type { TaskRecord } from '../store/store.js'
import { A2AError } from '../wire/a2a-error.js'
import type { LimitCounters } from '../core/counters.js'

export const TURN_WINDOW_MS = 60 * 60_000

export interface QuotaOptions {
  /** Fresh turns per sliding hour; negative = unlimited. */
  turnsPerHour: number
  /** Whom the turn cap counts together: each owner, or each tenant (owners in no tenant alone). */
  turnsPer: 'owner' | 'tenant'
  /** Tasks SUBMITTED or WORKING at once per tenant (per owner in no tenant); negative = unlimited. */
  occupiedPerTenant: number
  /** How long an occupied place lasts at most: past a run's deadline, even if its process died. */
  occupancyTtlMs: number
  counters: LimitCounters
  logger: Logger
}

type Coordinates = Pick<Viewer, 'owner' | 'tenant'>

export class Quota {
  constructor(private readonly options: QuotaOptions) {}

  /** Whether {@link admitTurn} counts anything: false when neither quota is set. */
  get counts(): boolean {
    return this.options.turnsPerHour >= 0 || this.options.occupiedPerTenant >= 0
  }

  /**
   * Counts a fresh turn (a new task; `occupies` unless it is born terminal) or throws HTTP 429.
   * Resolves to an undo for a failure after it, so a task that was never made counts nothing.
   */
  async admitTurn(viewer: Coordinates, taskId: string, occupies: boolean): Promise<() => Promise<void>> {
    const { turnsPerHour, occupiedPerTenant, counters } = this.options
    const taken: [string, string][] = []
    const undo = () => Promise.all(taken.map(([key, id]) => counters.release(key, id))).then(() => undefined)
    if (occupies && occupiedPerTenant >= 0) {
      const key = occupancyKey(viewer)
      const take = await counters.take(key, taskId, occupiedPerTenant, this.options.occupancyTtlMs)
      if (!take.taken) {
        throw new HttpRefusal(
          429,
          A2AError.unsupported(
            `Too many tasks running at once: at most ${occupiedPerTenant} per ${viewer.tenant === null ? 'owner' : 'tenant'}; retry when one of them finishes or asks for input`,
          ),
        )
      }
      taken.push([key, taskId])
    }
    if (turnsPerHour >= 0) {
      const key = this.#turnKey(viewer)
      const take = await counters.take(key, taskId, turnsPerHour, TURN_WINDOW_MS).catch(async (error: unknown) => {
        await undo()
        throw error
      })
      if (!take.taken) {
        await undo()
        const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000))
        throw new HttpRefusal(429, A2AError.unsupported(`Too many new tasks: at most ${turnsPerHour} per hour per ${key.split(' ')[1]}; the next one fits in ${seconds} s`), {
          'Retry-After': String(seconds),
        })
      }
      taken.push([key, taskId])
    }
    return undo
  }

  /** A resumed task's run occupies a place again; never refused (an answer starts no turn). */
  async occupy(record: TaskRecord): Promise<void> {
    if (this.options.occupiedPerTenant < 0) return
    await this.options.counters.take(occupancyKey(record), record.id, Number.POSITIVE_INFINITY, this.options.occupancyTtlMs)
  }

  /** The task's run settled or paused: its place is free. A failure is logged; the place expires anyway. */
  vacate(record: TaskRecord): void {
    if (this.options.occupiedPerTenant < 0) return
    this.options.counters.release(occupancyKey(record), record.id).catch((error: unknown) => {
      this.options.logger.error(`a2a: freeing task ${record.id}'s place in the occupied-task count failed (it expires by itself): ${scrub(error)}`)
    })
  }

  #turnKey(viewer: Coordinates): string {
    return this.options.turnsPer === 'tenant' && viewer.tenant !== null ? `turns tenant ${viewer.tenant}` : `turns owner ${viewer.owner}`
  }
}

const occupancyKey = (viewer: Coordinates): string => (viewer.tenant !== null ? `occupied tenant ${viewer.tenant}` : `occupied owner ${viewer.owner}`)
