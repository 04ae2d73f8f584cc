/**
 * In-process fan-out of the events each stored write produced, tagged with the task version that
 * write made, so a subscriber can skip what a snapshot already reflects.
 * @module
 */
import type { StreamResponse } from '../wire/types.js'

export interface TaskEvent {
  taskId: string
  version: number
  response: StreamResponse
  /** Set on the final write of a handler that answered with a direct reply (`ctx.reply`). */
  repliedWithMessage?: true
}

/** The event's response as JSON, serialized once however many streams send it (kept on the event). */
export function encodeEvent(event: TaskEvent & { json?: string }): string {
  return (event.json ??= JSON.stringify(event.response))
}

/** Sees every event of the task it subscribed to. */
export interface TaskEventListener {
  receive(event: TaskEvent): void
}

export class TaskEvents {
  readonly #listeners = new Map<string, Set<TaskEventListener>>()

  /** @param tap sees every event of every task (push delivery). */
  constructor(private readonly tap?: (event: TaskEvent) => void) {}

  subscribe(taskId: string, listener: TaskEventListener): void {
    let set = this.#listeners.get(taskId)
    if (!set) this.#listeners.set(taskId, (set = new Set()))
    set.add(listener)
  }

  unsubscribe(taskId: string, listener: TaskEventListener): void {
    const set = this.#listeners.get(taskId)
    if (set?.delete(listener) && set.size === 0) this.#listeners.delete(taskId)
  }

  publish(event: TaskEvent): void {
    this.tap?.(event)
    const set = this.#listeners.get(event.taskId)
    if (!set) return
    // One listener (a task's only stream) needs no copy: it may unsubscribe while being told.
    if (set.size === 1) for (const listener of set) return listener.receive(event)
    for (const listener of [...set]) listener.receive(event)
  }
}
