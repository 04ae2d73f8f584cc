/**
 * Retention per tier (one owner's tasks in one tenant under one scope set): the oldest settled
 * tasks beyond the bound are deleted after each settle, the oldest paused ones beyond theirs are
 * canceled after each pause. In-flight tasks are never touched, and one tier never trims another.
 * A deleted task's push configs go with it.
 * @module
 */
import type { Viewer } from '../core/principal.js'
import type { ExchangeCore } from './exchange-core.js'
import { compareNewestFirst } from '../store/cursor.js'
import { statusTime, type TaskRecord } from '../store/store.js'
import { writeTask } from '../store/write.js'
import { capabilityOf } from '../store/capabilities.js'
import { PAUSED_STATES, TERMINAL_STATES, type TaskState } from '../wire/types.js'
import { agentMessage, withStatus } from './task-changes.js'

/** Every record of exactly this tier in the given states, newest first. */
export async function listTier(core: ExchangeCore, tier: Viewer, states: ReadonlySet<TaskState>): Promise<TaskRecord[]> {
  const [filtersTenant, filtersScope] = [capabilityOf(core.store, 'filtersTenant'), capabilityOf(core.store, 'filtersScope')]
  const found: TaskRecord[] = []
  let cursor: string | undefined
  do {
    const page = await core.store.list({
      owner: tier.owner,
      ...(filtersTenant ? { tenant: tier.tenant } : {}),
      ...(filtersScope ? { scope: tier.scope } : {}),
      states: [...states],
      pageSize: 100,
      ...(cursor ? { cursor } : {}),
    })
    for (const r of page.records) {
      if (r.tenant === tier.tenant && r.scope === tier.scope && states.has(r.task.status.state)) found.push(r)
    }
    cursor = page.nextCursor
  } while (cursor)
  return found.sort((a, b) => compareNewestFirst({ time: statusTime(a), id: a.id }, { time: statusTime(b), id: b.id }))
}

/** Deletes the tier's oldest settled tasks beyond the bound; the store's own trim's promise as it is (this runs after every settle). */
export function trimSettled(core: ExchangeCore, tier: Viewer): Promise<unknown> | undefined {
  const keep = core.limits.settledRetention
  if (keep < 0) return undefined
  // Either way the tasks' push configs go with them: the Store contract, which the conformance
  // suite checks, so this hot path does not delete them a second time.
  const trims = capabilityOf(core.store, 'trims')
  return trims ? trims.trimSettled(tier, keep) : trimByListing(core, tier, keep)
}

async function trimByListing(core: ExchangeCore, tier: Viewer, keep: number): Promise<void> {
  for (const record of (await listTier(core, tier, TERMINAL_STATES)).slice(keep)) await core.store.delete(record.id)
}

export async function capPaused(core: ExchangeCore, tier: Viewer): Promise<void> {
  const keep = core.limits.pausedRetention
  if (keep < 0) return
  const paused = await listTier(core, tier, PAUSED_STATES)
  let canceled = false
  for (const record of paused.slice(keep)) {
    if (core.runs.has(record.id)) continue
    let event
    const outcome = await writeTask(core.store, record, (current) => {
      if (!PAUSED_STATES.has(current.task.status.state)) return null
      const next = withStatus(current.task, 'TASK_STATE_CANCELED', agentMessage(current.task, 'canceled: too many paused tasks; the oldest paused tasks are canceled'))
      event = next.event
      return { task: next.task, event: next.event }
    })
    if ('written' in outcome && event) {
      core.events.publish({ taskId: record.id, version: outcome.written.version, response: event })
      canceled = true
    }
  }
  if (canceled) await trimSettled(core, tier)
}
