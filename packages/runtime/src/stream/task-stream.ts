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
import type { StoreWatch } from '../run/remote-writes.js'
import type { TaskRecord } from '../store/store.js'
import { rememberedText, rememberText } from '../wire/json-safe.js'
import { encodeEvent, type TaskEvent, type TaskEventListener } from './task-events.js'

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

/** With notes arriving, the store is still read this often (times pollMs): a safety net, not the path. */
const LIVE_POLL_FACTOR = 10

/**
 * One stream following one task, as one object: it listens from the moment it is made (holding
 * what comes before its writer), then sends the snapshot and every later event. Its listener and
 * its store path are its methods, not closures made per stream: a burst of streams is a burst of
 * these, each holding one task's state.
 */
export class TaskStream implements TaskEventListener {
  readonly #core: ExchangeCore
  /** Events that came before {@link follow} took over; undefined from then on. */
  #early: TaskEvent[] | undefined = []
  #sink: SseWriter | undefined
  #endsStream = endsTask
  #historyLength: number | undefined
  /** The version of the last event or snapshot sent. */
  #lastVersion = 0
  /** The snapshot not yet sent, while a direct reply may still replace it. */
  #held: TaskRecord | undefined
  /** The record as it was when listening began (a fresh task, a resumed one), if known. */
  readonly #snapshot: TaskRecord | undefined
  /**
   * The text the store just encoded the snapshot's task to. Remembered texts are only the last few
   * (wire/json-safe.ts): in a burst, thousands of tasks are stored before this one's snapshot goes out.
   */
  readonly #snapshotText: string | undefined
  #stopKeepAlive: (() => void) | undefined
  #watch: StoreWatch | undefined

  /** Listens from now on; `snapshot` is the record as it is now, else the store is read when following begins. */
  constructor(
    core: ExchangeCore,
    readonly taskId: string,
    snapshot?: TaskRecord,
  ) {
    this.#core = core
    this.#snapshot = snapshot
    this.#snapshotText = snapshot && rememberedText(snapshot.task)
    core.events.subscribe(taskId, this)
  }

  /** An event of the task (from {@link TaskEvents}). */
  receive(event: TaskEvent): void {
    if (this.#early) this.#early.push(event)
    else this.#deliver(event)
  }

  /** Stops listening and following: the stream ended, or was never started. */
  stop(): void {
    this.#core.events.unsubscribe(this.taskId, this)
    this.#early = undefined
    this.#stopKeepAlive?.()
    this.#watch?.stop()
  }

  /** Streams the task onto `sink` until the end `options.until` names, or until the stream closes. */
  async follow(sink: SseWriter, options: FollowOptions): Promise<void> {
    const core = this.#core
    this.#sink = sink
    this.#endsStream = options.until === 'terminal' ? endsTask : endsTurn
    this.#historyLength = options.historyLength
    sink.onClose(() => this.stop())
    const current = this.#snapshot ?? (await core.store.get(this.taskId).catch(() => null))
    // A read that failed is not a task that is gone: the client must not give up on a live task.
    if (current === null) return sink.fail(A2AError.internal())
    if (!current) return sink.fail(A2AError.taskNotFound(this.taskId))
    this.#lastVersion = current.version
    // Held back until the run shows whether it makes a task or answers with a message.
    this.#held = options.directReply ? current : undefined
    if (this.#endsStream(current.task.status.state)) return this.#answerRecord(current)
    if (!this.#held) this.#sendSnapshot(current)
    const early = this.#early
    if (!early) return
    // Handed over in order; every later event is delivered as it comes.
    this.#early = undefined
    for (const event of early) this.#deliver(event)
    if (!sink.open) return
    const { recheck } = options
    this.#stopKeepAlive = everyKeepAlive(options.keepAliveMs, () => {
      sink.keepAlive()
      void recheck?.().then((refusal) => refusal && sink.fail(refusal))
    })
    await this.#watchStore(options.pollMs)
  }

  #sendSnapshot(record: TaskRecord): void {
    // Named again as the snapshot's text, so the answer below finds it among the newest.
    if (record === this.#snapshot && this.#snapshotText !== undefined) rememberText(record.task, this.#snapshotText)
    this.#sink!.send({ task: toWireTask(record, { historyLength: this.#historyLength }) }, record.version)
  }

  #deliver(event: TaskEvent): void {
    const sink = this.#sink!
    if (event.version <= this.#lastVersion || !sink.open) return
    this.#lastVersion = event.version
    const held = this.#held
    const reply = event.repliedWithMessage && 'statusUpdate' in event.response ? event.response.statusUpdate.status.message : undefined
    if (held && reply) {
      sink.send({ message: reply }, event.version)
      return sink.close()
    }
    if (held) {
      this.#held = undefined
      this.#sendSnapshot(held)
    }
    sink.sendEncoded(encodeEvent(event), event.version)
    if (this.#endsStream(stateOf(event.response))) sink.close()
  }

  /** A record read from the store: a direct reply while the snapshot is held, else a snapshot; then the end if it is one. */
  #answerRecord(record: TaskRecord): void {
    const sink = this.#sink!
    const reply = this.#held && record.repliedWithMessage ? record.task.status.message : undefined
    this.#held = undefined
    if (reply) sink.send({ message: reply }, record.version)
    else this.#sendSnapshot(record)
    if (reply || this.#endsStream(record.task.status.state)) sink.close()
  }

  /**
   * Events come from the live run in this process. When there is none (another replica runs the
   * task, or a run ended without storing a final state), the store is read instead, woken by the
   * store's notification of each write (another replica's run, a resume elsewhere), or every
   * `pollMs` while notifications are unavailable. The events the store kept are sent one by one;
   * past a gap (kept no longer, or written by a store that keeps none) the task is sent instead.
   */
  async #watchStore(pollMs: number): Promise<void> {
    const core = this.#core
    const sink = this.#sink!
    const closed = new Promise<void>((resolve) => sink.onClose(resolve))
    const watch = (this.#watch = core.remote?.watch(this.taskId))
    // Closed while the watch was being made: stop() ran before it was there to stop.
    if (watch && !sink.open) watch.stop()
    while (sink.open) {
      const run = core.runs.get(this.taskId)
      if (run) await Promise.race([run.done, closed])
      else if (watch) await watch.next(watch.live ? pollMs * LIVE_POLL_FACTOR : pollMs, closed)
      else await Promise.race([sleep(pollMs), closed])
      if (!sink.open) return
      // Events sent (or their read failed, tried again at the next wake): nothing more to read now.
      if ((await this.#sendKeptEvents()) !== false) continue
      // A read that failed (the database is away) is tried again at the next wake, not taken for a deleted task.
      const fresh = await core.store.get(this.taskId).catch(() => null)
      if (fresh === null) continue
      if (!fresh) return sink.fail(A2AError.taskNotFound(this.taskId))
      if (fresh.version > this.#lastVersion) {
        // Written between the two reads: its event is kept by now (the same statement wrote both).
        if ((await this.#sendKeptEvents()) === true) continue
        this.#lastVersion = fresh.version
        this.#answerRecord(fresh)
      } else if (this.#endsStream(fresh.task.status.state)) {
        return sink.close()
      }
    }
  }

  /**
   * Sends the events the store kept after the last version sent, when they follow it without a
   * gap: true when any was sent, false when the task must be read instead, null when the read failed.
   */
  async #sendKeptEvents(): Promise<boolean | null> {
    const { store } = this.#core
    // A held snapshot waits for a direct reply, which only the task tells.
    if (!store.eventsSince || this.#held) return false
    const after = this.#lastVersion
    const kept = await store.eventsSince(this.taskId, after).catch(() => null)
    if (kept === null) return null
    if (kept.length === 0 || !kept.every((event, i) => event.version === after + 1 + i)) return false
    for (const event of kept) this.#deliver({ taskId: this.taskId, version: event.version, response: event.response })
    return true
  }
}
