/**
 * Follows one task onto an SSE stream: the current snapshot first, then every event in the order
 * it was produced, skipping events at or below the snapshot's version (so an appended artifact
 * chunk is never applied twice), until the task settles (or, for one turn, pauses). Listening
 * starts before the snapshot is taken, so no event falls between the two.
 * @module
 */
import type { ExchangeCore } from '../run/exchange-core.js'
import { toWireTask } from '../run/to-wire.js'
import { scrub } from '../log/logger.js'
import { A2AError } from '../wire/a2a-error.js'
import { isPaused, isTerminal, type StreamResponse, type TaskState } from '../wire/types.js'
import { joinKeepAlive, leaveKeepAlive, type KeepAliveMember } from './keep-alive-clock.js'
import type { EventSink, StreamCloseListener } from './sse-writer.js'
import type { StoreWatch } from '../run/remote-writes.js'
import type { TaskRecord } from '../store/store.js'
import { isStoreUnavailable, storeUnavailable } from '../store/unavailable.js'
import { rememberedText, rememberText } from '../wire/json-safe.js'
import { followStore, type StoreFollowed } from './store-follow.js'
import { encodeEvent, type TaskEvent, type TaskEventListener } from '../run/task-events.js'

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
  recheck?: Rechecker | undefined
}

/** Checks a stream's caller again (an object, so a stream keeps no closure for it). */
export interface Rechecker {
  recheck(taskId: string): Promise<A2AError | undefined>
}

const endsTurn = (state: TaskState | undefined) => state !== undefined && (isTerminal(state) || isPaused(state))
const endsTask = (state: TaskState | undefined) => state !== undefined && isTerminal(state)

const stateOf = (response: StreamResponse): TaskState | undefined =>
  'statusUpdate' in response ? response.statusUpdate.status.state : 'task' in response ? response.task.status.state : undefined

/**
 * One stream following one task, as one object: it listens from the moment it is made (holding
 * what comes before its writer), then sends the snapshot and every later event. While the task's
 * run is live in this process nothing of the stream waits: the run's events come to
 * {@link receive}, and its end to {@link runEnded}, which hands the stream to the store
 * (store-follow.ts). Its listener, keep-alive beat and close listener are its own methods, not
 * closures or suspended async frames per stream: a burst of streams is a burst of these, each
 * holding one task's state.
 */
export class TaskStream implements TaskEventListener, KeepAliveMember, StreamCloseListener, StoreFollowed {
  readonly core: ExchangeCore
  /** Events that came before {@link follow} took over; undefined from then on. */
  #early: TaskEvent[] | undefined = []
  #sink: EventSink | undefined
  #endsStream = endsTask
  #historyLength: number | undefined
  #keepAliveMs = 0
  #pollMs = 0
  #recheck: FollowOptions['recheck']
  /** The version of the last event or snapshot sent. */
  lastVersion = 0
  /** The snapshot not yet sent, while a direct reply may still replace it. */
  #held: TaskRecord | undefined
  /** The record as it was when listening began (a fresh task, a resumed one), if known, until it is sent. */
  #snapshot: TaskRecord | undefined
  /**
   * The text the store just encoded the snapshot's task to. Remembered texts are only the last few
   * (wire/json-safe.ts): in a burst, thousands of tasks are stored before this one's snapshot goes out.
   */
  #snapshotText: string | undefined
  /** Set while the stream waits for the live run in this process to end (see {@link runEnded}). */
  #awaitingRun = false
  /** The store's notes of this task's writes, once the stream follows the store (kept from then on). */
  watch: StoreWatch | undefined

  /** Listens from now on; `snapshot` is the record as it is now, else the store is read when following begins. */
  constructor(
    core: ExchangeCore,
    readonly taskId: string,
    snapshot?: TaskRecord,
  ) {
    this.core = core
    this.#snapshot = snapshot
    this.#snapshotText = snapshot && rememberedText(snapshot.task)
    core.events.subscribe(taskId, this)
  }

  get sink(): EventSink {
    return this.#sink!
  }

  get pollMs(): number {
    return this.#pollMs
  }

  /** Whether the store is read to answer (a held snapshot waits for a direct reply, which only the task tells). */
  get holdsSnapshot(): boolean {
    return this.#held !== undefined
  }

  /** An event of the task (from {@link TaskEvents}). */
  receive(event: TaskEvent): void {
    if (this.#early) this.#early.push(event)
    else this.deliver(event)
  }

  /** The task's run in this process settled: what it left is read from the store, then the store is followed. */
  runEnded(): void {
    if (!this.#awaitingRun) return
    this.#awaitingRun = false
    this.#followStore(true)
  }

  /** A keep-alive beat (from the shared clock); the caller's access is checked again. */
  keepAlive(): void {
    const sink = this.#sink!
    sink.keepAlive()
    void this.#recheck?.recheck(this.taskId).then((refusal) => refusal && sink.fail(refusal))
  }

  streamClosed(): void {
    this.stop()
  }

  /** Stops listening and following: the stream ended, or was never started. */
  stop(): void {
    this.core.events.unsubscribe(this.taskId, this)
    this.#early = undefined
    this.#awaitingRun = false
    if (this.#keepAliveMs > 0) leaveKeepAlive(this.#keepAliveMs, this)
    this.watch?.stop()
  }

  /** Streams the task onto `sink` until the end `options.until` names, or until the stream closes; a failure ends the stream with an error event. */
  follow(sink: EventSink, options: FollowOptions): void {
    this.#sink = sink
    this.#endsStream = options.until === 'terminal' ? endsTask : endsTurn
    this.#historyLength = options.historyLength
    this.#pollMs = options.pollMs
    this.#recheck = options.recheck
    sink.onClose(this)
    const snapshot = this.#snapshot
    if (snapshot) this.#start(snapshot, options)
    else
      void this.core.store
        .get(this.taskId)
        .then(
          (current) => this.#start(current, options),
          () => this.#start(null, options),
        )
        .catch((error: unknown) => this.broke(error))
  }

  #start(current: TaskRecord | null | undefined, options: FollowOptions): void {
    const sink = this.#sink!
    // A read that failed is not a task that is gone: the client must not give up on a live task.
    if (current === null) return sink.fail(storeUnavailable())
    if (!current) return sink.fail(A2AError.taskNotFound(this.taskId))
    this.lastVersion = current.version
    // Held back until the run shows whether it makes a task or answers with a message.
    this.#held = options.directReply ? current : undefined
    if (this.#endsStream(current.task.status.state)) return this.answerRecord(current)
    if (!this.#held) this.#sendSnapshot(current)
    const early = this.#early
    if (!early) return
    // Handed over in order; every later event is delivered as it comes.
    this.#early = undefined
    for (const event of early) this.deliver(event)
    if (!sink.open) return
    this.#keepAliveMs = options.keepAliveMs
    joinKeepAlive(options.keepAliveMs, this)
    this.followRun()
  }

  /**
   * Events come from the live run in this process, and its end to {@link runEnded}. When there is
   * none (another replica runs the task, or a run ended without storing a final state), the store
   * is followed instead.
   */
  followRun(): void {
    if (this.#sink!.open && !this.awaitRun()) this.#followStore(false)
  }

  /** If a run of the task is live in this process, the stream waits for its end ({@link runEnded}): true then. */
  awaitRun(): boolean {
    if (!this.core.runs.get(this.taskId)) return false
    this.#awaitingRun = true
    return true
  }

  #followStore(readFirst: boolean): void {
    void followStore(this, readFirst).catch((error: unknown) => this.broke(error))
  }

  /** Something unexpected broke the stream: logged, and the stream ends with an error event. */
  broke(error: unknown): void {
    this.core.logger.error(`a2a: stream of task ${this.taskId} broke: ${scrub(error)}`)
    this.#sink?.fail(isStoreUnavailable(error) ? storeUnavailable() : A2AError.internal())
  }

  #sendSnapshot(record: TaskRecord): void {
    // Named again as the snapshot's text, so the answer below finds it among the newest.
    if (record === this.#snapshot && this.#snapshotText !== undefined) rememberText(record.task, this.#snapshotText)
    this.#forgetSnapshot()
    this.#sink!.send({ task: toWireTask(record, { historyLength: this.#historyLength }) }, record.version)
  }

  /** Sent or replaced: the stream holds on to neither the record nor its text. */
  #forgetSnapshot(): void {
    this.#snapshot = undefined
    this.#snapshotText = undefined
  }

  deliver(event: TaskEvent): void {
    const sink = this.#sink!
    if (event.version <= this.lastVersion || !sink.open) return
    this.lastVersion = event.version
    const held = this.#held
    const reply = event.repliedWithMessage && 'statusUpdate' in event.response ? event.response.statusUpdate.status.message : undefined
    if (held && reply) {
      this.#forgetSnapshot()
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
  answerRecord(record: TaskRecord): void {
    const sink = this.#sink!
    const reply = this.#held && record.repliedWithMessage ? record.task.status.message : undefined
    this.#held = undefined
    if (reply) {
      this.#forgetSnapshot()
      sink.send({ message: reply }, record.version)
    } else {
      this.#sendSnapshot(record)
    }
    if (reply || this.#endsStream(record.task.status.state)) sink.close()
  }

  endsStream(state: TaskState): boolean {
    return this.#endsStream(state)
  }
}
