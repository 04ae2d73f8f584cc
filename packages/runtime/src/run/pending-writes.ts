/**
 * A run's writes within its first turn of the event loop, kept in the process and stored as one
 * store write when the run ends or pauses, or else when the turn ends (with its deadline, see
 * run-deadlines). A handler that answers without waiting on I/O or timers so costs one write:
 * - a new task on a store no other process writes (`capabilities.oneProcess`) is not stored yet:
 *   its writes change the record in the process and its insert stores their latest state. Nothing
 *   was told about the task before that insert (the sender's answer waits for it), so no event is
 *   published for these writes, and a crash before it loses only a task nobody heard of;
 * - a stored task (a resumed one, or a new one inserted before its run, as on a store replicas
 *   share, so that a message sent to two replicas runs once) gets one update after the write that
 *   claimed its run (the insert, or the resuming WORKING), carrying all the writes' events, a
 *   version each (TaskChanges.events), each published once stored under its own version. A write
 *   stored meanwhile by another writer (a cancel on another replica) moves the version: the writes
 *   are decided again on the fresh record, and a settled one declines them all.
 * @module
 */
import type { Store, TaskChanges, TaskRecord } from '../store/store.js'
import { writeTask, type WriteOutcome } from '../store/write.js'
import type { TaskEvents } from './task-events.js'

/** One write's decision on the task's latest record: its changes, or null to decline. */
export type Decision = (current: TaskRecord) => TaskChanges | null

export class PendingWrites {
  /** The record as stored; undefined for a new task the insert of its latest state stores. */
  readonly stored: TaskRecord | undefined
  /** Each write's decision, to decide again on a record another writer moved (a stored task's only). */
  readonly #decisions: Decision[] | undefined
  /** The changes each write made, oldest first (a stored task's only). */
  #changes: TaskChanges[] | undefined

  constructor(stored?: TaskRecord) {
    this.stored = stored
    if (stored) {
      this.#decisions = []
      this.#changes = []
    }
  }

  /** Whether these are a new task's writes, stored by its insert. */
  get inserts(): boolean {
    return this.stored === undefined
  }

  /** A stored task's writes, as the last {@link update} decided them. */
  get writes(): readonly TaskChanges[] {
    return this.#changes ?? []
  }

  /** `record` after `decide`'s changes, applied in the process as the store would; null if it declines. */
  add(record: TaskRecord, decide: Decision): TaskRecord | null {
    const changes = decide(record)
    if (!changes) return null
    const next = applied(record, changes)
    if (this.#changes) {
      // A version per write, as if each were stored; a new task stays at version 1 until its insert.
      next.version++
      this.#decisions!.push(decide)
      this.#changes.push(changes)
    }
    return next
  }

  /** Stores a stored task's writes as one update, decided again on a record another writer moved. */
  update(store: Store): Promise<WriteOutcome> {
    const stored = this.stored!
    return writeTask(store, stored, (current) => merged(current === stored ? this.#changes! : (this.#changes = redecided(current, this.#decisions!))))
  }

  /** Publishes the stored update's events, each under its own version (the last is `written`'s). */
  publish(events: TaskEvents, written: TaskRecord): void {
    const writes = this.writes
    for (let i = 0; i < writes.length; i++) {
      const { event, repliedWithMessage } = writes[i]!
      const version = written.version - writes.length + 1 + i
      events.publish({ taskId: written.id, version, response: event!, ...(repliedWithMessage ? { repliedWithMessage: true } : {}) })
    }
  }
}

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
    record = applied(record, changes)
    record.version++
  }
  return writes
}

/** The record after `changes`: the store's update, applied in the process (the version is the caller's). */
function applied(record: TaskRecord, changes: TaskChanges): TaskRecord {
  const next: TaskRecord = { ...record, task: changes.task, updatedAt: Math.max(Date.now(), record.updatedAt) }
  if (changes.messageIds) next.messageIds = changes.messageIds
  if (changes.repliedWithMessage !== undefined) next.repliedWithMessage = changes.repliedWithMessage
  if (changes.lease === null) delete next.lease
  else if (changes.lease) next.lease = changes.lease
  return next
}
