/**
 * Follows one task onto an SSE stream: the current snapshot first, then every event in the order
 * it was produced, skipping events at or below the snapshot's version (so an appended artifact
 * chunk is never applied twice), until the task settles (or, for one turn, pauses). Listening
 * starts before the snapshot is taken, so no event falls between the two.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExchangeCore } from '../exchange/core.js'
import { toWireTask } from '../exchange/to-wire.js'
import { A2AError } from '../wire/a2a-error.js'
import { isPaused, isTerminal, type StreamResponse, type TaskState } from '../wire/types.js'
import { everyKeepAlive } from './keep-alive-clock.js'
import type { SseWriter } from './sse-writer.js'
import type { TaskRecord } from '../store/store.js'
import { encodeEvent, type TaskEvent } from './task-events.js'

export interface FollowOptions {
  /** Where the stream ends: a terminal state, or also an interrupted one (the end of one turn). */
  until: 'terminal' | 'interrupted'
  /**
   * Holds the snapshot back until the run's first event, so a handler's direct reply is answered
   * as one `message` event instead of a task snapshot and its completion.
   */
  directReply?: boolean
  historyLength?: number | undefined
  keepAliveMs: number
  /** How often to read the store when no run of this task is live in this process. */
  pollMs: number
  /** Checked at each keep-alive: an error ends the stream (credentials revoked, tenant changed). */
  recheck?: () => Promise<A2AError | undefined>
}

const endsTurn = (state: TaskState | undefined) => state !== undefined && (isTerminal(state) || isPaused(state))
const endsTask = (state: TaskState | undefined) => state !== undefined && isTerminal(state)

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
  const endsStream = options.until === 'terminal' ? endsTask : endsTurn
  sink.onClose(listener.stop)
  const current = snapshot ?? (await core.store.get(taskId).catch(() => null))
  // A read that failed is not a task that is gone: the client must not give up on a live task.
  if (current === null) return sink.fail(A2AError.internal())
  if (!current) return sink.fail(A2AError.taskNotFound(taskId))
  const follow: Follow = {
    lastVersion: current.version,
    // Held back until the run shows whether it makes a task or answers with a message.
    held: options.directReply ? current : undefined,
    endsStream,
    sendSnapshot: (record) => sink.send({ task: toWireTask(record, { historyLength: options.historyLength }) }, record.version),
  }
  if (endsStream(current.task.status.state)) return answerRecord(sink, follow, current)
  if (!follow.held) follow.sendSnapshot(current)
  const deliver = (event: TaskEvent) => {
    if (event.version <= follow.lastVersion || !sink.open) return
    follow.lastVersion = event.version
    const reply = event.repliedWithMessage && 'statusUpdate' in event.response ? event.response.statusUpdate.status.message : undefined
    if (follow.held && reply) {
      sink.send({ message: reply }, event.version)
      return sink.close()
    }
    if (follow.held) follow.sendSnapshot(follow.held)
    follow.held = undefined
    sink.sendEncoded(encodeEvent(event), event.version)
    if (endsStream(stateOf(event.response))) sink.close()
  }
  listener.drainTo(deliver)

  sink.onClose(
    everyKeepAlive(options.keepAliveMs, () => {
      sink.keepAlive()
      void options.recheck?.().then((refusal) => refusal && sink.fail(refusal))
    }),
  )
  await watchStore(core, taskId, sink, options.pollMs, follow, deliver)
}

/** What one stream has sent so far, shared by its event and store paths. */
interface Follow {
  lastVersion: number
  /** The snapshot not yet sent, while a direct reply may still replace it. */
  held: TaskRecord | undefined
  endsStream: (state: TaskState | undefined) => boolean
  sendSnapshot: (record: TaskRecord) => void
}

/** A record read from the store: a direct reply while the snapshot is held, else a snapshot; then the end if it is one. */
function answerRecord(sink: SseWriter, follow: Follow, record: TaskRecord): void {
  const reply = follow.held && record.repliedWithMessage ? record.task.status.message : undefined
  follow.held = undefined
  if (reply) sink.send({ message: reply }, record.version)
  else follow.sendSnapshot(record)
  if (reply || follow.endsStream(record.task.status.state)) sink.close()
}

/** With notes arriving, the store is still read this often (times pollMs): a safety net, not the path. */
const LIVE_POLL_FACTOR = 10

/**
 * Events come from the live run in this process. When there is none (another replica runs the
 * task, or a run ended without storing a final state), the store is read instead, woken by the
 * store's notification of each write (another replica's run, a resume elsewhere), or every
 * `pollMs` while notifications are unavailable. The events the store kept are sent one by one;
 * past a gap (kept no longer, or written by a store that keeps none) the task is sent instead.
 */
async function watchStore(core: ExchangeCore, taskId: string, sink: SseWriter, pollMs: number, follow: Follow, deliver: (event: TaskEvent) => void) {
  const closed = new Promise<void>((resolve) => sink.onClose(resolve))
  const watch = core.remote?.watch(taskId)
  if (watch) sink.onClose(watch.stop)
  while (sink.open) {
    const run = core.runs.get(taskId)
    if (run) await Promise.race([run.done, closed])
    else if (watch) await watch.next(watch.live ? pollMs * LIVE_POLL_FACTOR : pollMs, closed)
    else await Promise.race([sleep(pollMs), closed])
    if (!sink.open) return
    // Events sent (or their read failed, tried again at the next wake): nothing more to read now.
    if ((await sendKeptEvents(core, taskId, follow, deliver)) !== false) continue
    // A read that failed (the database is away) is tried again at the next wake, not taken for a deleted task.
    const fresh = await core.store.get(taskId).catch(() => null)
    if (fresh === null) continue
    if (!fresh) return sink.fail(A2AError.taskNotFound(taskId))
    if (fresh.version > follow.lastVersion) {
      // Written between the two reads: its event is kept by now (the same statement wrote both).
      if ((await sendKeptEvents(core, taskId, follow, deliver)) === true) continue
      follow.lastVersion = fresh.version
      answerRecord(sink, follow, fresh)
    } else if (follow.endsStream(fresh.task.status.state)) {
      return sink.close()
    }
  }
}

/**
 * Sends the events the store kept after the last version sent, when they follow it without a
 * gap: true when any was sent, false when the task must be read instead, null when the read failed.
 */
async function sendKeptEvents(core: ExchangeCore, taskId: string, follow: Follow, deliver: (event: TaskEvent) => void): Promise<boolean | null> {
  // A held snapshot waits for a direct reply, which only the task tells.
  if (!core.store.eventsSince || follow.held) return false
  const kept = await core.store.eventsSince(taskId, follow.lastVersion).catch(() => null)
  if (kept === null) return null
  if (kept.length === 0 || !kept.every((event, i) => event.version === follow.lastVersion + 1 + i)) return false
  for (const event of kept) deliver({ taskId, version: event.version, response: event.response })
  return true
}
