/**
 * Applies the retention bound that a settled or paused task triggers in its tier. Retention is
 * housekeeping: a failing store or trimmer is logged once and never fails the request or the run.
 * @module
 */
import type { ExchangeCore } from './exchange-core.js'
import { scrub } from '../log/logger.js'
import { tierKey, type TaskRecord } from '../store/store.js'
import { capabilityOf } from '../store/capabilities.js'
import { isPaused, isTerminal } from '../wire/types.js'
import { tierOf } from '../core/principal.js'
import { capPaused, trimSettled } from './retention.js'

/** Whether this settle trims its tier: every one, unless the store's trims are paced (trim-pacing.ts). */
const trimDue = (core: ExchangeCore, record: TaskRecord): boolean =>
  !capabilityOf(core.store, 'pacedTrims') || core.trims.due(tierKey(record.owner, record.tenant, record.scope), core.limits.settledRetention)

const NOTHING_DUE: Promise<void> = Promise.resolve()

/**
 * Applies the bound. A trim or cap under way is held in core.retaining, which a shutdown waits
 * for; most settles on a store with paced trims start none, and cost no promise.
 */
export function retain(core: ExchangeCore, record: TaskRecord): Promise<void> {
  let work: Promise<unknown> | undefined
  try {
    const state = record.task.status.state
    if (isTerminal(state)) work = trimDue(core, record) ? trimSettled(core, tierOf(record)) : undefined
    else if (isPaused(state)) work = capPaused(core, tierOf(record))
  } catch (error) {
    logFailure(core, record, error)
  }
  if (!work) return NOTHING_DUE
  const forget = (): void => {
    core.retaining.delete(retaining)
  }
  const retaining: Promise<void> = work.then(forget, (error: unknown) => {
    logFailure(core, record, error)
    forget()
  })
  core.retaining.add(retaining)
  return retaining
}

function logFailure(core: ExchangeCore, record: TaskRecord, error: unknown): void {
  core.logger.error(`a2a: retention trim failed after task ${record.id}: ${scrub(error)}`)
}
