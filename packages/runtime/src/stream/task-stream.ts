/**
 * Follows one task onto an SSE stream: the current snapshot first, then every event in the order
 * it was produced, skipping events at or below the snapshot's version (so an appended artifact
 * chunk is never applied twice), until the task settles or pauses. Listening starts before the
 * snapshot is taken, so no event falls between the two.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExchangeCore } from '../exchange/core.js'
import { toWireTask } from '../exchange/to-wire.js'
import { A2AError } from '../wire/a2a-error.js'
import { isPaused, isTerminal, type StreamResponse, type TaskState } from '../wire/types.js'
import type { SseWriter } from './sse-writer.js'
import type { TaskRecord } from '../store/store.js'
import { encodeEvent, type TaskEvent } from './task-events.js'

export interface FollowOptions {
  historyLength?: number | undefined
  keepAliveMs: number
  /** How often to read the store when no run of this task is live in this process. */
  pollMs: number
  /** Checked at each keep-alive: an error ends the stream (credentials revoked, tenant changed). */
  recheck?: () => Promise<A2AError | undefined>
}

const endsStream = (state: TaskState | undefined) => state !== undefined && (isTerminal(state) || isPaused(state))

const stateOf = (response: StreamResponse): TaskState | undefined =>
  'statusUpdate' in response ? response.statusUpdate.status.state : 'task' in response ? response.task.status.state : undefined

/** Events of one task, buffered from the moment of listening until a stream takes them. */
export class TaskListener {
  readonly #buffer: TaskEvent[] = []
  #deliver: ((event: TaskEvent) => void) | undefined
  readonly stop: () => void

  constructor(core: ExchangeCore, readonly taskId: string) {
    this.stop = core.events.subscribe(taskId, (event) => (this.#deliver ? this.#deliver(event) : this.#buffer.push(event)))
  }

  /** Hands over what was buffered, then every later event as it comes. */
  drainTo(deliver: (event: TaskEvent) => void): void {
    this.#deliver = deliver
    for (const event of this.#buffer.splice(0)) deliver(event)
  }
}

/**
 * Streams the task the listener follows. `snapshot` is the record as it was when listening began
 * (a fresh task, a resumed one); without it the store is read after listening began.
 */
export async function followTask(core: ExchangeCore, listener: TaskListener, sink: SseWriter, options: FollowOptions, snapshot?: TaskRecord): Promise<void> {
  const { taskId } = listener
  let lastVersion = 0
  sink.onClose(listener.stop)
  const current = snapshot ?? (await core.store.get(taskId).catch(() => undefined))
  if (!current) return sink.fail(A2AError.taskNotFound(taskId))
  lastVersion = current.version
  sink.send({ task: toWireTask(current, { historyLength: options.historyLength }) }, current.version)
  if (endsStream(current.task.status.state)) return sink.close()
  listener.drainTo((event) => {
    if (event.version <= lastVersion || !sink.open) return
    lastVersion = event.version
    sink.sendEncoded(encodeEvent(event), event.version)
    if (endsStream(stateOf(event.response))) sink.close()
  })

  const keepAlive = setInterval(() => {
    sink.keepAlive()
    void options.recheck?.().then((refusal) => refusal && sink.fail(refusal))
  }, options.keepAliveMs)
  sink.onClose(() => clearInterval(keepAlive))
  await watchStore(core, taskId, sink, options.pollMs, () => lastVersion, (version) => (lastVersion = version))
}

/**
 * Events come from the live run in this process. When there is none (another replica runs the
 * task, or a run ended without storing a final state), the store is read instead and each new
 * version is sent as a snapshot.
 */
async function watchStore(core: ExchangeCore, taskId: string, sink: SseWriter, pollMs: number, seen: () => number, saw: (version: number) => void) {
  const closed = new Promise<void>((resolve) => sink.onClose(resolve))
  while (sink.open) {
    const run = core.runs.get(taskId)
    if (run) await Promise.race([run.done, closed])
    else await Promise.race([sleep(pollMs), closed])
    if (!sink.open) return
    const fresh = await core.store.get(taskId).catch(() => undefined)
    if (!fresh) return sink.fail(A2AError.taskNotFound(taskId))
    if (fresh.version > seen()) {
      saw(fresh.version)
      sink.send({ task: toWireTask(fresh) }, fresh.version)
    }
    if (endsStream(fresh.task.status.state)) return sink.close()
  }
}
