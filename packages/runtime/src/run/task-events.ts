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
  /** The task's run in this process settled (its waiters woken); the events it published came first. */
  runEnded?(): void
}

export class TaskEvents {
  /** A task's only listener as itself (almost every task has at most one stream), more in a Set. */
  readonly #listeners = new Map<string, TaskEventListener | Set<TaskEventListener>>()

  /** See every event of every task (the inbox's live list); empty almost always. */
  readonly #watchers = new Set<(event: TaskEvent) => void>()

  /** @param tap sees every event of every task (push delivery). */
  constructor(private readonly tap?: (event: TaskEvent) => void) {}

  /** Sees every event of every task until the returned function is called. */
  watch(watcher: (event: TaskEvent) => void): () => void {
    this.#watchers.add(watcher)
    return () => void this.#watchers.delete(watcher)
  }

  subscribe(taskId: string, listener: TaskEventListener): void {
    const listening = this.#listeners.get(taskId)
    if (listening === undefined) this.#listeners.set(taskId, listener)
    else if (listening instanceof Set) listening.add(listener)
    else if (listening !== listener) this.#listeners.set(taskId, new Set([listening, listener]))
  }

  unsubscribe(taskId: string, listener: TaskEventListener): void {
    const listening = this.#listeners.get(taskId)
    if (listening === listener) this.#listeners.delete(taskId)
    else if (listening instanceof Set && listening.delete(listener) && listening.size === 0) this.#listeners.delete(taskId)
  }

  publish(event: TaskEvent): void {
    this.tap?.(event)
    if (this.#watchers.size) for (const watcher of this.#watchers) watcher(event)
    const listening = this.#listeners.get(event.taskId)
    if (listening === undefined) return
    if (!(listening instanceof Set)) return listening.receive(event)
    // A copy: a listener may unsubscribe while being told.
    for (const listener of [...listening]) listener.receive(event)
  }

  /** Tells the task's listeners that its run in this process settled. */
  runEnded(taskId: string): void {
    const listening = this.#listeners.get(taskId)
    if (listening === undefined) return
    if (!(listening instanceof Set)) return listening.runEnded?.()
    for (const listener of [...listening]) listener.runEnded?.()
  }
}
