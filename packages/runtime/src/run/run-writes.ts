/**
 * A run's writes to its task: serialized, versioned, refused once the run has stopped. The writes
 * of its first turn are kept pending and stored together at the turn's end, or when the run ends
 * or pauses first (see pending-writes): by the insert of a new task, which is held in the process
 * until then, or as one update of a task stored before the run started.
 * @module
 */
import type { ExchangeCore } from './exchange-core.js'
import { scrub } from '../log/logger.js'
import type { TaskChanges, TaskRecord } from '../store/store.js'
import { writeTask, type WriteOutcome } from '../store/write.js'
import { isPaused, isTerminal, type Task } from '../wire/types.js'
import { Waiter } from './waiter.js'
import { PendingWrites, type Decision } from './pending-writes.js'
import { RunControl } from './run-control.js'
import { TaskCanceledError } from './run-errors.js'
import { changesOf, type Transition } from './task-changes.js'

/** Stores a new task (the store's create, or a create that refuses an accepted message id). */
export type InsertTask = (record: TaskRecord) => Promise<void>

/** What storing no pending writes waits for. */
const nothingPending: Promise<void> = Promise.resolve()

export abstract class RunWrites extends RunControl {
  #queue: Promise<unknown> = nothingPending
  /** Writes this run made (pending or stored): a handler that made none may answer with a direct message. */
  protected writeCount = 0
  /** The first turn's writes until they are stored; a new task's from the start (its insert stores them). */
  #pending: PendingWrites | undefined
  /** How the new task is inserted, when not by the store's create. */
  readonly #insertWith: InsertTask | undefined
  /** The new task's insert, from its start until it is stored (kept if refused); later writes go after it. */
  #inserting: Promise<void> | undefined
  /** Set when the insert was refused: the sender is answered with its error (or the task that won). */
  #insertRefusal: { error: unknown } | undefined
  /**
   * The sender's wait for the insert, made when {@link stored} is read before it and let go once
   * told: the run keeps no copy of the task as inserted once it has written again.
   */
  #storedWait: Waiter<TaskRecord> | undefined

  constructor(core: ExchangeCore, record: TaskRecord, isNew: boolean, insertWith?: InsertTask) {
    super(core, record)
    this.#insertWith = insertWith
    if (isNew) this.#pending = new PendingWrites()
  }

  /**
   * A new task: read before its insert (as the sender of a held task does), resolves with the
   * record as inserted, or rejects with the store's refusal (then the run has ended and freed its
   * slot); whoever reads it answers that refusal. Read once the task is stored, or for a task
   * stored before the run, resolves at once with the run's record.
   */
  get stored(): Promise<TaskRecord> {
    if (this.#storedWait) return this.#storedWait.promise
    if (this.#insertRefusal) return Promise.reject(this.#insertRefusal.error)
    if (!this.held && !this.#inserting) return Promise.resolve(this.latest)
    return (this.#storedWait = new Waiter<TaskRecord>()).promise
  }

  /** A handler write, after the previous one whether it held or failed. */
  change(transition: (task: Task) => Transition): Promise<TaskRecord> {
    // One promise per write serves as both.
    const write = () => this.write(transition)
    const next = this.#queue.then(write, write)
    this.#queue = next
    return next
  }

  /** Inserts the new task now, before its run starts (a stream's first event or a push config needs it stored). */
  insert(): Promise<void> {
    return this.held ? this.storePending() : (this.#inserting ?? nothingPending)
  }

  /**
   * Another process wrote this task (a store note of `version`): after this run's writes in
   * flight, a newer stored terminal state (a cancel served by another replica) cuts the handler
   * and frees the run's slot. A failed read waits for the next note.
   */
  noticeWrite(version: number): void {
    if (this.stop || version <= this.latest.version) return
    this.#queue = this.#queue
      .then(async () => {
        if (this.stop || version <= this.latest.version) return
        const stored = await this.core.store.get(this.id)
        if (stored && stored.version > this.latest.version && isTerminal(stored.task.status.state)) this.canceled(stored)
      })
      .catch(() => undefined)
  }

  protected get insertFailed(): boolean {
    return this.#insertRefusal !== undefined
  }

  /** Whether a new task's insert is pending: its writes so far change the record in the process only. */
  protected get held(): boolean {
    return this.#pending?.inserts === true
  }

  /** The run starts: unless its task is held, its first turn's writes go pending, for one update. */
  protected startPending(): void {
    this.#pending ??= new PendingWrites(this.latest)
  }

  /** The run outlived its first turn: its pending writes are stored after the write in progress, before the next. */
  protected storeFirstTurn(): void {
    if (!this.#pending) return
    const store = () => this.storePending()
    this.#queue = this.#queue.then(store, store).catch((error: unknown) => this.#storeFailed(error))
  }

  protected async write(transition: (task: Task) => Transition, repliedWithMessage = false): Promise<TaskRecord> {
    this.assertOpen()
    const change = this.changeTask((current) => (isTerminal(current.task.status.state) ? null : changesOf(transition(current.task), repliedWithMessage)))
    // Awaited only when it is stored: each await is a turn of the microtask queue.
    const written = change === true || (change !== false && (await change))
    if (!written) {
      // Another writer (a cancel, possibly on another replica) settled the task first.
      this.canceled(this.latest)
      throw new TaskCanceledError(this.id)
    }
    const state = this.latest.task.status.state
    if (isTerminal(state) || isPaused(state)) {
      this.stop ??= { why: 'ended' }
      await this.storePending()
      await this.settle(this.latest)
    }
    return this.latest
  }

  /** Stores the pending writes, once: as the new task's insert, or as one update of the stored task. */
  protected storePending(): Promise<void> {
    const pending = this.#pending
    if (!pending) return nothingPending
    this.#pending = undefined
    return pending.inserts ? this.#insert() : this.#update(pending)
  }

  /**
   * One change of the task, decided on its latest record: added to the pending writes while there
   * are any, else written to the store (version-guarded) and its event published. False when it
   * was declined, or the task is gone; {@link latest} is then the record that declined it.
   */
  protected changeTask(decide: Decision): boolean | Promise<boolean> {
    const pending = this.#pending
    // A pending write is made in the process: answered at once, with no promise.
    if (!pending) return this.#storeChange(decide)
    const next = pending.add(this.latest, decide)
    if (!next) return false
    this.writeCount++
    this.latest = next
    return true
  }

  async #storeChange(decide: Decision): Promise<boolean> {
    // A refused insert ended the run: assertOpen says how.
    if (this.#inserting) await this.#inserting.catch(() => this.assertOpen())
    let changes: TaskChanges | null = null
    const outcome = await writeTask(this.core.store, this.latest, (current) => (changes = decide(current)))
    if ('declined' in outcome) this.latest = outcome.declined
    if (!('written' in outcome)) return false
    this.writeCount++
    this.latest = outcome.written
    const { event, repliedWithMessage } = changes!
    this.core.events.publish({ taskId: this.id, version: this.latest.version, response: event!, ...(repliedWithMessage ? { repliedWithMessage } : {}) })
    return true
  }

  /** Inserts the new task in its latest state. A refusal ends the run (its slot freed) and rejects, as {@link stored} does. */
  #insert(): Promise<void> {
    const record = this.latest
    this.#inserting = (this.#insertWith ? this.#insertWith(record) : this.core.store.create(record)).then(
      () => {
        // Stored: later writes need not wait for it (a refusal is kept, for them to be told).
        this.#inserting = undefined
        this.#storedWait?.resolve(record)
        this.#storedWait = undefined
      },
      (error: unknown) => {
        // Not stored, so never told to anyone: the sender answers this error, or the task that won.
        this.#insertRefusal = { error }
        this.stop ??= { why: 'ended' }
        this.abort(new TaskCanceledError(this.id))
        this.#storedWait?.reject(error)
        this.#storedWait = undefined
        void this.settle(record, false)
        throw error
      },
    )
    return this.#inserting
  }

  /**
   * Writes a stored task's pending writes as one update, then publishes their events. Declined (a
   * cancel stored first, maybe on another replica): the run is cut and this throws
   * TaskCanceledError. A failed write leaves the record as stored and the run open, and throws.
   */
  async #update(pending: PendingWrites): Promise<void> {
    if (pending.writes.length === 0 || this.finished) return
    const stored = pending.stored!
    let outcome: WriteOutcome
    try {
      outcome = await pending.update(this.core.store)
    } catch (error) {
      // Not stored: the run is open again, and the handler hears of it as of any failed write.
      this.latest = stored
      if (this.stop?.why === 'ended') this.stop = undefined
      throw error
    }
    if (!('written' in outcome)) {
      this.stop = { why: 'canceled' }
      this.abort(new TaskCanceledError(this.id))
      await this.settle('declined' in outcome ? outcome.declined : stored)
      throw new TaskCanceledError(this.id)
    }
    this.latest = outcome.written
    pending.publish(this.core.events, outcome.written)
  }

  /** Storing the pending writes at the turn's end failed: the run ends, its task as stored (the lease sweep settles it). */
  #storeFailed(error: unknown): void {
    // A refused insert answered its sender and ended the run already.
    if (error instanceof TaskCanceledError || this.insertFailed) return
    this.core.logger.error(`a2a: storing the first writes of task ${this.id} failed: ${scrub(error)}`)
    this.stop ??= { why: 'ended' }
    this.abort(new TaskCanceledError(this.id))
    void this.settle(this.latest)
  }
}
