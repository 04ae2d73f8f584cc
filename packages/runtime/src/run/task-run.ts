/**
 * One run of a skill handler on one task: its writes, its deadline, and how it ends. A run
 * outlives the request that started it; whoever settles the task first (the handler, a cancel,
 * the deadline, shutdown) wins in the store, and later writes of the run are refused. The writes
 * of its first turn are stored together at the turn's end (see pending-writes): as the insert of
 * a new task held in the process, or as one update of a task stored before the run started.
 * @module
 */
import type { Principal } from '../auth/principal.js'
import type { ExchangeCore } from '../exchange/core.js'
import { scrub } from '../log/logger.js'
import type { Skill, SkillResult } from '../skills/skill.js'
import type { TaskChanges, TaskRecord } from '../store/store.js'
import { writeTask, type WriteOutcome } from '../store/write.js'
import { isPaused, isTerminal, type Message, type Part, type Task, type TaskState } from '../wire/types.js'
import { hasLargeParts, offloadLargeParts } from '../artifacts/offload.js'
import { PendingWrites, type Decision } from './pending-writes.js'
import { retain } from './retain.js'
import { armDeadline } from './run-deadlines.js'
import { DeadlineExceededError, RunEndedError, TaskCanceledError, TaskTimeoutError } from './run-errors.js'
import { agentMessage, withStatus, type Transition } from './task-changes.js'
import { createTaskContext } from './task-context.js'

type Stop = { why: 'ended' } | { why: 'canceled' } | { why: 'timed-out'; error: TaskTimeoutError }

/** What storing no pending writes waits for. */
const nothingPending: Promise<void> = Promise.resolve()

export class TaskRun {
  /** Made when the handler first reads its signal: most never do. */
  #controller: AbortController | undefined
  #abortReason: Error | undefined
  /** Resolves with the record the run left behind once it has settled, paused, or been cut. */
  readonly done: Promise<TaskRecord>
  #record: TaskRecord
  #stop: Stop | undefined
  #queue: Promise<unknown> = Promise.resolve()
  #timer: NodeJS.Timeout | undefined
  #finish!: (record: TaskRecord) => void
  #finished = false
  /** Writes this run made (pending or stored): a handler that made none may answer with a direct message. */
  #writes = 0
  /** Made for a new task, which it inserts: it starts without reading it again. */
  readonly #new: boolean
  /** The first turn's writes, until they are stored (a new task's from the start: its insert stores them). */
  #pending: PendingWrites | undefined
  /** How the new task is inserted, when not by the store's create. */
  readonly #insertWith: ((record: TaskRecord) => Promise<void>) | undefined
  /** The new task's insert, once begun; later writes go after it. */
  #inserting: Promise<void> | undefined
  /** Set when the insert was refused: the sender is answered with its error (or the task that won). */
  #insertFailed = false
  /**
   * A new task: resolves with the record as inserted, or rejects with the store's refusal (then
   * the run has ended and freed its slot). Otherwise resolves at once with the record given.
   */
  readonly stored: Promise<TaskRecord>
  #resolveStored!: (record: TaskRecord) => void
  #rejectStored!: (error: unknown) => void

  constructor(
    private readonly core: ExchangeCore,
    record: TaskRecord,
    readonly skill: Skill,
    readonly principal: Principal,
    readonly message: Message,
    /** scheme://host[:port] the caller reached the agent at: artifact file URLs are built on it. */
    readonly baseUrl = 'http://localhost',
    /**
     * A new task, not stored yet: inserted by {@link insert} before the run starts, or else with
     * its first turn's writes. Made before the insert, so a cancel or a shutdown once the task is
     * stored finds the run. `insert` stores it (default: the store's create).
     */
    options: { new?: boolean; insert?: (record: TaskRecord) => Promise<void> } = {},
  ) {
    this.#record = record
    this.#new = options.new === true
    this.#insertWith = options.insert
    this.done = new Promise((resolve) => (this.#finish = resolve))
    if (this.#new) {
      this.#pending = new PendingWrites()
      this.stored = new Promise((resolve, reject) => {
        this.#resolveStored = resolve
        this.#rejectStored = reject
      })
      // Its refusal is answered by whoever inserts (the sender), not here.
      this.stored.catch(() => undefined)
    } else {
      this.stored = Promise.resolve(record)
    }
    core.runs.set(record.id, this)
  }

  get record(): TaskRecord {
    return this.#record
  }

  get id(): string {
    return this.#record.id
  }

  /** Aborted when the run is cut (cancel, timeout, shutdown); already aborted if it was cut before this was read. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#abortReason) this.#controller.abort(this.#abortReason)
    }
    return this.#controller.signal
  }

  get finished(): boolean {
    return this.#finished
  }

  /**
   * The run outlived the turn it started in ({@link armDeadline} calls this then): its pending
   * writes are stored now, and the deadline timer is armed unless the run has ended.
   */
  arm(ms: number): void {
    if (this.#pending) {
      const store = () => this.#storePending()
      // After the write in progress, before the next: later writes go to the store one by one.
      this.#queue = this.#queue.then(store, store).catch((error: unknown) => this.#storeFailed(error))
    }
    if (this.#stop) return
    this.#timer = setTimeout(() => void this.#timeout(), ms)
    this.#timer.unref()
  }

  #abort(reason: Error): void {
    this.#abortReason = reason
    this.#controller?.abort(reason)
  }

  /** Whether {@link offload} has any part to store as a file (most artifacts have none). */
  offloads(parts: Part[]): boolean {
    const { artifacts } = this.core
    return artifacts !== undefined && hasLargeParts(artifacts, parts)
  }

  /**
   * The parts with oversized text and bytes stored as files and sent as url parts. A new task is
   * inserted first: the file sweep deletes the files of every task the store does not hold.
   */
  async offload(parts: Part[]): Promise<Part[]> {
    const { artifacts } = this.core
    if (!artifacts) return parts
    if (this.#pending?.inserts) await this.#storePending()
    return offloadLargeParts(artifacts, this.#record, this.baseUrl, parts)
  }

  /**
   * Runs the handler unless the task was settled (canceled) before it could start. A task stored
   * before the run was made (a resumed one) is read again first, for a cancel stored since; a new
   * one is not: no one but this run can have written it before its insert, and since then a cancel
   * or shutdown in this process reaches the run itself, a cancel on another replica its notes.
   */
  async start(): Promise<void> {
    if (this.#new) {
      if (this.#stop) return
      // Inserted already (a stream's or push config's first event needed it): its writes are one update.
      this.#pending ??= new PendingWrites(this.#record)
    } else {
      try {
        const fresh = await this.core.store.get(this.id)
        if (this.#stop) return
        if (!fresh || isTerminal(fresh.task.status.state)) return this.#settle(fresh ?? this.#record)
        this.#record = fresh
      } catch (error) {
        // Never left SUBMITTED by a run that did not start: FAILED now, or by a sweep once its lease expired.
        this.core.logger.error(`a2a: run start failed for task ${this.id}: ${scrub(error)}`)
        this.#stop = { why: 'ended' }
        return this.#settleAs('TASK_STATE_FAILED', 'the agent could not start on this task (its database was unreachable); send the message again to retry')
      }
    }
    armDeadline(this, this.core.limits.taskTimeoutMs)
    let result: SkillResult
    try {
      result = await this.skill.handler(createTaskContext(this))
    } catch (error) {
      if (this.#stop) return
      this.core.logger.warn(`a2a: skill "${this.skill.id}" threw on task ${this.id}: ${scrub(error)}`)
      return this.#end((task) => withStatus(task, 'TASK_STATE_FAILED', agentMessage(task, `skill "${this.skill.id}" failed`)))
    }
    if (this.#stop) return
    const untouched = this.#writes === 0 && !this.#record.task.artifacts?.length
    const reply = result ? { ...result, contextId: this.#record.contextId, taskId: this.id } : undefined
    return this.#end((task) => withStatus(task, 'TASK_STATE_COMPLETED', reply), reply !== undefined && untouched)
  }

  /** A handler write: serialized, versioned, refused once the run has stopped. */
  change(transition: (task: Task) => Transition): Promise<TaskRecord> {
    // After the previous write whether it held or failed; one promise per write serves as both.
    const write = () => this.#write(transition)
    const next = this.#queue.then(write, write)
    this.#queue = next
    return next
  }

  /** Inserts the new task now, before its run starts (a stream's first event or a push config needs it stored). */
  insert(): Promise<void> {
    return this.#storePending()
  }

  /** The new task was removed again before the run started (its push config was refused): ends the run unstarted. */
  discard(): void {
    this.#stop ??= { why: 'ended' }
    void this.#settle(this.#record, false)
  }

  /** Marks the run cut by a cancel the exchange already stored. */
  canceled(record: TaskRecord): void {
    if (this.#stop) return
    this.#stop = { why: 'canceled' }
    this.#abort(new TaskCanceledError(this.id))
    void this.#settle(record)
  }

  /**
   * Another process wrote this task (a store notification of `version`): once this run's own
   * writes in flight are done, a newer stored terminal state (a cancel served by another replica)
   * cuts the handler at once and frees the run's slot. A failed read waits for the next note.
   */
  noticeWrite(version: number): void {
    if (this.#stop || version <= this.#record.version) return
    this.#queue = this.#queue
      .then(async () => {
        if (this.#stop || version <= this.#record.version) return
        const stored = await this.core.store.get(this.id)
        if (stored && stored.version > this.#record.version && isTerminal(stored.task.status.state)) this.canceled(stored)
      })
      .catch(() => undefined)
  }

  /** Shutdown: store CANCELED and cut the handler. */
  async cut(): Promise<void> {
    if (this.#stop) return
    this.#stop = { why: 'canceled' }
    this.#abort(new TaskCanceledError(this.id))
    await this.#settleAs('TASK_STATE_CANCELED', 'canceled: the server is shutting down')
  }

  assertOpen(): void {
    const stop = this.#stop
    if (!stop) return
    if (stop.why === 'timed-out') throw stop.error
    if (stop.why === 'canceled') throw new TaskCanceledError(this.id)
    throw new RunEndedError(this.id, this.#record.task.status.state)
  }

  async #write(transition: (task: Task) => Transition, repliedWithMessage = false): Promise<TaskRecord> {
    this.assertOpen()
    const written = await this.#change((current) => (isTerminal(current.task.status.state) ? null : changesOf(transition(current.task), repliedWithMessage)))
    if (!written) {
      // Another writer (a cancel, possibly on another replica) settled the task first.
      this.canceled(this.#record)
      throw new TaskCanceledError(this.id)
    }
    const state = this.#record.task.status.state
    if (isTerminal(state) || isPaused(state)) {
      // Pending writes first, the run still open: if they fail, the handler hears it as of any write.
      await this.#storePending()
      this.#stop ??= { why: 'ended' }
      await this.#settle(this.#record)
    }
    return this.#record
  }

  /**
   * One change of the task, decided on its latest record: added to the pending writes while there
   * are any, else written to the store (version-guarded) and its event published. False when it
   * was declined, or the task is gone; {@link record} is then the record that declined it.
   */
  async #change(decide: Decision): Promise<boolean> {
    const pending = this.#pending
    if (pending) {
      const next = pending.add(this.#record, decide)
      if (!next) return false
      this.#writes++
      this.#record = next
      return true
    }
    // A refused insert ended the run: assertOpen says how.
    if (this.#inserting) await this.#inserting.catch(() => this.assertOpen())
    let changes: TaskChanges | null = null
    const outcome = await writeTask(this.core.store, this.#record, (current) => (changes = decide(current)))
    if ('declined' in outcome) this.#record = outcome.declined
    if (!('written' in outcome)) return false
    this.#writes++
    this.#record = outcome.written
    const { event, repliedWithMessage } = changes!
    this.core.events.publish({ taskId: this.id, version: this.#record.version, response: event!, ...(repliedWithMessage ? { repliedWithMessage } : {}) })
    return true
  }

  /** Stores the pending writes, once: as the new task's insert, or as one update of the stored task. */
  #storePending(): Promise<void> {
    const pending = this.#pending
    if (!pending) return nothingPending
    this.#pending = undefined
    return pending.inserts ? this.#insert() : this.#update(pending)
  }

  /** Inserts the new task in its latest state. A refusal ends the run (its slot freed) and rejects, as {@link stored} does. */
  #insert(): Promise<void> {
    const record = this.#record
    this.#inserting = (this.#insertWith ? this.#insertWith(record) : this.core.store.create(record)).then(
      () => this.#resolveStored(record),
      (error: unknown) => {
        // Not stored, so never told to anyone: the sender answers this error, or the task that won.
        this.#insertFailed = true
        this.#stop ??= { why: 'ended' }
        this.#abort(new TaskCanceledError(this.id))
        this.#rejectStored(error)
        void this.#settle(record, false)
        throw error
      },
    )
    return this.#inserting
  }

  /**
   * Writes a stored task's pending writes as one update, then publishes their events. Declined (a
   * cancel stored first, maybe on another replica): the run is cut and this throws
   * TaskCanceledError. A failed write leaves the record as stored, and throws.
   */
  async #update(pending: PendingWrites): Promise<void> {
    if (pending.writes.length === 0 || this.#finished) return
    const stored = pending.stored!
    let outcome: WriteOutcome
    try {
      outcome = await pending.update(this.core.store)
    } catch (error) {
      this.#record = stored
      throw error
    }
    if (!('written' in outcome)) {
      this.#stop = { why: 'canceled' }
      this.#abort(new TaskCanceledError(this.id))
      await this.#settle('declined' in outcome ? outcome.declined : stored)
      throw new TaskCanceledError(this.id)
    }
    this.#record = outcome.written
    pending.publish(this.core.events, outcome.written)
  }

  /** The pending writes could not be stored once the run outlived its turn: the run ends, the task stays as stored (a sweep settles it once its lease expires). */
  #storeFailed(error: unknown): void {
    // A refused insert answered its sender and ended the run already.
    if (error instanceof TaskCanceledError || this.#insertFailed) return
    this.core.logger.error(`a2a: storing the first writes of task ${this.id} failed: ${scrub(error)}`)
    this.#stop ??= { why: 'ended' }
    this.#abort(new TaskCanceledError(this.id))
    void this.#settle(this.#record)
  }

  /** The run's own final write after the handler returned or threw; failures are logged, not thrown. */
  async #end(transition: (task: Task) => Transition, repliedWithMessage = false): Promise<void> {
    try {
      await this.#write(transition, repliedWithMessage)
    } catch (error) {
      if (error instanceof TaskCanceledError || error instanceof RunEndedError || error instanceof TaskTimeoutError || this.#insertFailed) return
      this.core.logger.error(`a2a: run finalize failed for task ${this.id}: ${scrub(error)}`)
      // Pending writes are stored all the same, as the handler left them, so its sender has an answer.
      await this.#storePending().catch(() => undefined)
      await this.#settle(this.#record)
    }
  }

  async #timeout(): Promise<void> {
    if (this.#stop) return
    const deadline = new DeadlineExceededError(this.core.limits.taskTimeoutMs)
    const error = new TaskTimeoutError(this.id, deadline)
    this.#stop = { why: 'timed-out', error }
    this.#abort(error)
    await this.#settleAs('TASK_STATE_FAILED', 'task timed out')
  }

  /** Stores a terminal state over whatever the task holds unless it is already terminal. */
  async #settleAs(state: TaskState, reason: string): Promise<void> {
    try {
      await this.#change((current) => (isTerminal(current.task.status.state) ? null : changesOf(withStatus(current.task, state, agentMessage(current.task, reason)), false)))
      await this.#storePending()
    } catch (error) {
      if (this.#insertFailed || error instanceof TaskCanceledError) return
      this.core.logger.error(`a2a: run finalize failed for task ${this.id}: ${scrub(error)}`)
    }
    await this.#settle(this.#record)
  }

  /** Releases the run's slot and wakes waiters; then applies retention (to a stored task). Runs once. */
  async #settle(record: TaskRecord, stored = true): Promise<void> {
    if (this.#finished) return
    this.#finished = true
    this.#stop ??= { why: 'ended' }
    clearTimeout(this.#timer)
    if (this.core.runs.get(this.id) === this) this.core.runs.delete(this.id)
    this.core.slots.release(this.#record.owner, this.id)
    this.core.quota?.vacate(this.#record)
    this.#record = record
    if (stored) await retain(this.core, record)
    this.#finish(record)
  }
}

/** A transition as the write that stores it. */
const changesOf = (next: Transition, repliedWithMessage: boolean): TaskChanges =>
  repliedWithMessage ? { task: next.task, event: next.event, repliedWithMessage } : { task: next.task, event: next.event }
