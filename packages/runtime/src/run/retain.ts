/**
 * Applies the retention bound that a settled or paused task triggers in its tier. Retention is
 * housekeeping: a failing store or trimmer is logged once and never fails the request or the run.
 * @module
 */
import type { ExchangeCore } from '../exchange/core.js'
import { scrub } from '../log/logger.js'
import { tierKey, type TaskRecord } from '../store/store.js'
import { isPaused, isTerminal } from '../wire/types.js'
import { capPaused, tierOf, trimSettled } from './retention.js'

/** Whether this settle trims its tier: every one, unless the store's trims are paced (trim-pacing.ts). */
const trimDue = (core: ExchangeCore, record: TaskRecord): boolean =>
  !core.store.capabilities?.pacedTrims || core.trims.due(tierKey(record.owner, record.tenant, record.scope), core.limits.settledRetention)

/** Applies the bound, held in core.retaining until done so that a shutdown can wait for it. */
export function retain(core: ExchangeCore, record: TaskRecord): Promise<void> {
  const retaining = applyRetention(core, record)
  core.retaining.add(retaining)
  void retaining.then(() => core.retaining.delete(retaining))
  return retaining
}

async function applyRetention(core: ExchangeCore, record: TaskRecord): Promise<void> {
  const state = record.task.status.state
  try {
    if (isTerminal(state)) {
      if (trimDue(core, record)) await trimSettled(core, tierOf(record))
    } else if (isPaused(state)) await capPaused(core, tierOf(record))
  } catch (error) {
    core.logger.error(`a2a: retention trim failed after task ${record.id}: ${scrub(error)}`)
  }
}
