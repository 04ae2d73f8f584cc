/**
 * Applies the retention bound that a settled or paused task triggers in its tier. Retention is
 * housekeeping: a failing store or trimmer is logged once and never fails the request or the run.
 * @module
 */
import type { ExchangeCore } from '../exchange/core.js'
import { scrub } from '../log/logger.js'
import type { TaskRecord } from '../store/store.js'
import { isPaused, isTerminal } from '../wire/types.js'
import { capPaused, tierOf, trimSettled } from './retention.js'

export async function retain(core: ExchangeCore, record: TaskRecord): Promise<void> {
  const state = record.task.status.state
  try {
    if (isTerminal(state)) await trimSettled(core, tierOf(record))
    else if (isPaused(state)) await capPaused(core, tierOf(record))
  } catch (error) {
    core.logger.error(`a2a: retention trim failed after task ${record.id}: ${scrub(error)}`)
  }
}
