/**
 * What waits for one push config while its previous delivery is still out. Events keep their order
 * up to a small window; past it they coalesce: the newest replaces every older one, none of which
 * is terminal (nothing is accepted after a terminal event, which always stays and goes last). So a
 * config that falls behind holds a bounded number of events, however chatty its task.
 * @module
 */
import type { StreamResponse, TaskState } from '../wire/types.js'

export interface PendingEvent {
  version: number
  /** What is POSTed: the StreamResponse, or for a 0.3 config the 0.3 task (see generation.ts). */
  body: unknown
  /** A terminal state: the last word for this config. */
  terminal: boolean
  /** See {@link isLastWord}. */
  lastWord: boolean
}

const TERMINAL: ReadonlySet<TaskState> = new Set<TaskState>(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'])
const INTERRUPTED: ReadonlySet<TaskState> = new Set<TaskState>(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'])

function stateOf(body: StreamResponse): TaskState | undefined {
  if ('statusUpdate' in body) return body.statusUpdate.status.state
  if ('task' in body) return body.task.status.state
  return undefined
}

export function isTerminal(body: StreamResponse): boolean {
  const state = stateOf(body)
  return state !== undefined && TERMINAL.has(state)
}

/**
 * The state a run ends on, terminal or interrupted (the task waits for its caller): such an event
 * is never refused for a full queue.
 */
export function isLastWord(body: StreamResponse): boolean {
  const state = stateOf(body)
  return state !== undefined && (TERMINAL.has(state) || INTERRUPTED.has(state))
}

/**
 * Adds `event` to `pending` (oldest first) and returns how many events were dropped for it: 0 when
 * it fits, the older events it replaced when the window is full, 1 (itself) when a terminal event
 * already waits.
 */
export function addPending(pending: PendingEvent[], event: PendingEvent, window: number): number {
  if (pending.some((waiting) => waiting.terminal)) return 1
  if (pending.length < window) {
    pending.push(event)
    return 0
  }
  const dropped = pending.length
  pending.splice(0, pending.length, event)
  return dropped
}
