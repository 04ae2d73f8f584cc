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

const encoded = new WeakMap<TaskEvent, string>()

/** The event's response as JSON, serialized once however many streams send it. */
export function encodeEvent(event: TaskEvent): string {
  let json = encoded.get(event)
  if (json === undefined) encoded.set(event, (json = JSON.stringify(event.response)))
  return json
}

type Listener = (event: TaskEvent) => void

export class TaskEvents {
  readonly #listeners = new Map<string, Set<Listener>>()

  /** @param tap sees every event of every task (push delivery). */
  constructor(private readonly tap?: Listener) {}

  subscribe(taskId: string, listener: Listener): () => void {
    let set = this.#listeners.get(taskId)
    if (!set) this.#listeners.set(taskId, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0) this.#listeners.delete(taskId)
    }
  }

  publish(event: TaskEvent): void {
    this.tap?.(event)
    const set = this.#listeners.get(event.taskId)
    if (!set) return
    for (const listener of [...set]) listener(event)
  }
}
