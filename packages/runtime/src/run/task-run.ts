/**
 * One run of a skill handler on one task: its writes, its deadline, and how it ends. A run
 * outlives the request that started it; whoever settles the task first (the handler, a cancel,
 * the deadline, shutdown) wins in the store, and later writes of the run are refused.
 *
 * A new task on a store no other process writes (`capabilities.oneProcess`) can be held: the run
 * starts before the task is stored, its writes change the record in the process, and the task is
 * inserted once, in its latest state, when the run ends or else once it outlives the turn of the
 * event loop it started in (with its deadline, see run-deadlines). A handler that answers without
 * waiting on I/O or timers so costs one store write. Nothing was told about the task before the
 * insert: the sender's answer waits for it ({@link TaskRun.stored}), no event is published for
 * the held writes (nobody can follow a task the store does not hold), and a crash before the
 * insert loses only a task nobody heard of.
 *
 * On a store replicas share the new task is inserted before its run starts (so a message sent at
 * once to two replicas runs once), and the run's writes within that same first turn are merged:
 * each changes the record in the process, and they are stored as one update carrying all their
 * events (a version each, see TaskChanges.events) when the run ends or outlives the turn, as a
 * held task is inserted. Their events are published once that update is stored, each under its
 * own version. A cancel stored meanwhile by another replica wins: the update finds the version
 * moved, and the run is cut as by any cancel.
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
import { retain } from './retain.js'
import { armDeadline } from './run-deadlines.js'
import { DeadlineExceededError, RunEndedError, TaskCanceledError, TaskTimeoutError } from './run-errors.js'
import { agentMessage, withStatus, type Transition } from './task-changes.js'
import { createTaskContext } from './task-context.js'

type Stop = { why: 'ended' } | { why: 'canceled' } | { why: 'timed-out'; error: TaskTimeoutError }

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
  /** Writes this run made (held or stored): a handler that made none may answer with a direct message. */
  #writes = 0
  /** Made for a new task, which it inserts ({@link insert}): it starts without reading it again. */
  readonly #new: boolean
  readonly #insert: (record: TaskRecord) => Promise<void>
  /** True while the new task is held: not in the store yet, changed in the process only. */
  #held: boolean
  /** The new task's insert, once begun; later writes go after it. */
  #inserting: Promise<void> | undefined
  /**
   * A stored new task's first-turn writes, not stored yet (see the module comment): the record as
   * stored, each write's decision (decided again on a fresher record if another writer moved it)
   * and the changes it made to the record in the process.
   */
  #merging: { stored: TaskRecord; decisions: Decision[]; changes: TaskChanges[] } | undefined
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
     * A new task, not stored yet: the run inserts it, when {@link insert} is called or, held, when
     * the run ends or outlives its first turn (see the module comment). Made before the insert, so
     * a cancel or a shutdown once the task is stored finds the run. `insert` stores it (default:
     * the store's create).
     */
    options: { new?: boolean; insert?: (record: TaskRecord) => Promise<void> } = {},
  ) {
    this.#record = record
    this.#insert = options.insert ?? ((created) => core.store.create(created))
    this.#new = this.#held = options.new === true
    this.done = new Promise((resolve) => (this.#finish = resolve))
    if (this.#held) {
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
   * The run outlived the turn it started in ({@link armDeadline} calls this then): a held task is
   * inserted now, in its latest state, and the deadline timer is armed unless the run has ended.
   */
  arm(ms: number): void {
    if (this.#held) {
      const insert = () => this.insert()
      // After the write in progress, before the next; a refusal is the sender's answer (stored).
      this.#queue = this.#queue.then(insert, insert).catch(() => undefined)
    } else if (this.#merging) {
      const flush = () => this.#flush()
      // After the write in progress, before the next: later writes go to the store one by one.
      this.#queue = this.#queue.then(flush, flush).catch((error: unknown) => this.#flushFailed(error))
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
   * The parts with oversized text and bytes stored as files and sent as url parts. A held task is
   * inserted first: the file sweep deletes the files of every task the store does not hold.
   */
  async offload(parts: Part[]): Promise<Part[]> {
    const { artifacts } = this.core
    if (!artifacts) return parts
    if (this.#held) await this.insert()
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
      if (!this.#held) this.#merging = { stored: this.#record, decisions: [], changes: [] }
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
    let event: Transition['event'] | undefined
    const { outcome, stored } = await this.#change((current) => {
      if (isTerminal(current.task.status.state)) return null
      const next = transition(current.task)
      event = next.event
      return { task: next.task, event: next.event, ...(repliedWithMessage ? { repliedWithMessage } : {}) }
    })
    if (!('written' in outcome)) {
      // Another writer (a cancel, possibly on another replica) settled the task first.
      this.canceled('declined' in outcome ? outcome.declined : this.#record)
      throw new TaskCanceledError(this.id)
    }
    this.#record = outcome.written
    if (stored) this.core.events.publish({ taskId: this.id, version: this.#record.version, response: event!, ...(repliedWithMessage ? { repliedWithMessage } : {}) })
    const state = this.#record.task.status.state
    if (isTerminal(state) || isPaused(state)) {
      // Merged writes first, the run still open: if they fail, the handler hears it as of any write.
      await this.#flush()
      this.#stop ??= { why: 'ended' }
      if (this.#held) await this.insert()
      await this.#settle(this.#record)
    }
    return this.#record
  }

  /**
   * One change of the task: to the held record while the task is not stored (`stored` false;
   * nothing else can have written it), else to the store after the insert, version-guarded.
   */
  async #change(decide: Decision): Promise<{ outcome: WriteOutcome; stored: boolean }> {
    if (this.#held || this.#merging) {
      const changes = decide(this.#record)
      if (!changes) return { outcome: { declined: this.#record }, stored: false }
      this.#writes++
      const merging = this.#merging
      if (!merging) return { outcome: { written: heldChange(this.#record, changes) }, stored: false }
      merging.decisions.push(decide)
      merging.changes.push(changes)
      return { outcome: { written: { ...heldChange(this.#record, changes), version: this.#record.version + 1 } }, stored: false }
    }
    // A refused insert ended the run: assertOpen says how.
    if (this.#inserting) await this.#inserting.catch(() => this.assertOpen())
    const outcome = await writeTask(this.core.store, this.#record, decide)
    if ('written' in outcome) this.#writes++
    return { outcome, stored: true }
  }

  /**
   * Inserts the new task in its latest state, once; from then on the run's writes go to the store.
   * A refusal ends the run (its slot freed) and rejects, as {@link stored} does.
   */
  insert(): Promise<void> {
    if (!this.#held) return this.#inserting ?? Promise.resolve()
    this.#held = false
    const record = this.#record
    this.#inserting = this.#insert(record).then(
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

  /** Stores what the process holds of the task: inserts a held one, writes merged writes. */
  #store(): Promise<void> {
    return this.#held ? this.insert() : this.#flush()
  }

  /**
   * Writes the merged first-turn writes as one update, then publishes their events, each under its
   * own version. The version moved (a cancel, maybe on another replica): decided again on the
   * fresh record, which declines once it is settled; then the run is cut and this throws
   * TaskCanceledError. A failed write leaves the record as stored, and throws.
   */
  async #flush(): Promise<void> {
    const merging = this.#merging
    if (!merging) return
    this.#merging = undefined
    if (merging.changes.length === 0 || this.#finished) return
    const { stored, decisions } = merging
    let writes = merging.changes
    let outcome: WriteOutcome
    try {
      outcome = await writeTask(this.core.store, stored, (current) => merged(current === stored ? writes : (writes = redecided(current, decisions))))
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
    const written = (this.#record = outcome.written)
    writes.forEach((changes, i) => {
      const version = written.version - writes.length + 1 + i
      this.core.events.publish({ taskId: this.id, version, response: changes.event!, ...(changes.repliedWithMessage ? { repliedWithMessage: true } : {}) })
    })
  }

  /** The merged writes could not be stored once the run outlived its turn: the run ends, the task stays as stored (a sweep settles it once its lease expires). */
  #flushFailed(error: unknown): void {
    if (error instanceof TaskCanceledError) return
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
      // A held task (or merged writes) is stored all the same, as the handler left it, so its sender has an answer.
      await this.#store().catch(() => undefined)
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
      let event: Transition['event'] | undefined
      const { outcome, stored } = await this.#change((current) => {
        if (isTerminal(current.task.status.state)) return null
        const next = withStatus(current.task, state, agentMessage(current.task, reason))
        event = next.event
        return { task: next.task, event: next.event }
      })
      if ('written' in outcome) {
        this.#record = outcome.written
        if (stored) this.core.events.publish({ taskId: this.id, version: this.#record.version, response: event! })
      } else if ('declined' in outcome) {
        this.#record = outcome.declined
      }
      await this.#store()
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

type Decision = (current: TaskRecord) => TaskChanges | null

/** Writes made one after another, as one: the last task, message ids, reply flag and lease each made, with all their events in order. */
function merged(writes: readonly TaskChanges[]): TaskChanges | null {
  if (writes.length === 0) return null
  const changes: TaskChanges = { task: writes.at(-1)!.task, events: writes.map((write) => write.event!) }
  for (const write of writes) {
    if (write.messageIds) changes.messageIds = write.messageIds
    if (write.repliedWithMessage !== undefined) changes.repliedWithMessage = write.repliedWithMessage
    if (write.lease !== undefined) changes.lease = write.lease
  }
  return changes
}

/** The writes decided again, in order, on a record another writer moved; up to the first that declines. */
function redecided(record: TaskRecord, decisions: readonly Decision[]): TaskChanges[] {
  const writes: TaskChanges[] = []
  for (const decide of decisions) {
    const changes = decide(record)
    if (!changes) break
    writes.push(changes)
    record = { ...heldChange(record, changes), version: record.version + 1 }
  }
  return writes
}

/** A held task's record after `changes`: the store's update, applied in the process (the version stays 1 until the insert). */
function heldChange(record: TaskRecord, changes: TaskChanges): TaskRecord {
  const next: TaskRecord = { ...record, task: changes.task, updatedAt: Math.max(Date.now(), record.updatedAt) }
  if (changes.messageIds) next.messageIds = changes.messageIds
  if (changes.repliedWithMessage !== undefined) next.repliedWithMessage = changes.repliedWithMessage
  if (changes.lease === null) delete next.lease
  else if (changes.lease) next.lease = changes.lease
  return next
}
