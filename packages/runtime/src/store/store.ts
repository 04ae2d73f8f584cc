/**
 * The storage contract for tasks. A store keeps records and answers queries; who may see a record
 * is decided by the exchange, which matches every record against the caller's owner, tenant and
 * scope set. Run the conformance suite from `@a2a-agent/runtime/testing` against any store.
 * @module
 */
import type { Viewer } from '../core/principal.js'
import type { ArtifactFiles } from '../core/artifact-files.js'
import type { LimitCounters } from '../core/counters.js'
import type { StreamResponse, Task, TaskState } from '../wire/types.js'
import type { PgBossJobRow } from './job-row.js'

export interface TaskRecord {
  id: string
  contextId: string
  /** Isolation coordinates recorded at creation; a store never changes them on update. */
  owner: string
  tenant: string | null
  /** Canonical scope set of the creating credential; null when a session created it. */
  scope: string | null
  /** Id of the skill the task was routed to. */
  skill: string
  /** Starts at 1 and grows by one with every stored write (by one per event with a write of several, see {@link TaskChanges.events}). */
  version: number
  /** The task as the wire shows it: status, artifacts, full history, metadata. */
  task: Task
  /** Ids of the client messages accepted into this task; `messageId` is an idempotency key per owner. */
  messageIds: string[]
  /** True when the skill answered with a direct message rather than task output. */
  repliedWithMessage?: boolean
  /** Epoch milliseconds. */
  createdAt: number
  updatedAt: number
  /** The run's lease while a run holds the task (see {@link RunLease}); absent when none does. */
  lease?: RunLease
}

/**
 * Which replica runs a task, and until when: the replica renews it while the run works. Once it
 * has expired, any replica's sweep settles the task FAILED (its process stopped). Renewing is not
 * a write of the task: it leaves the version alone.
 */
export interface RunLease {
  runner: string
  /** Epoch milliseconds. */
  until: number
}

/** What an update may change: the task body, the accepted message ids and the run's lease. */
export interface TaskChanges {
  task: Task
  messageIds?: string[]
  repliedWithMessage?: boolean
  /** A new lease (a run starts), or null to drop it; absent leaves it as it is. */
  lease?: RunLease | null
  /**
   * The event the write publishes. A store shared by replicas keeps it a while, so followers on
   * the other replicas receive every event (see {@link Store.eventsSince}); others ignore it.
   */
  event?: StreamResponse
  /**
   * Instead of `event`: the events of several changes written as one (a run's writes within one
   * turn). The version grows by their number, and each is kept under its own version, in order
   * (the first under expectedVersion + 1), as if each had been its own write.
   */
  events?: readonly StreamResponse[]
  /** A job row inserted with the write, in its transaction; only given to a store whose `writesJobRow` said yes for it. */
  job?: PgBossJobRow
}

/** The events a write carries, oldest first. */
export const eventsOf = (changes: Pick<TaskChanges, 'event' | 'events'>): readonly StreamResponse[] => changes.events ?? (changes.event ? [changes.event] : [])

/** How many versions a write makes: one per event of a write of several, else one. */
export const versionsOf = (changes: Pick<TaskChanges, 'events'>): number => Math.max(changes.events?.length ?? 1, 1)

/** An event a task write produced, as a store keeps it for followers on other replicas. */
export interface StoredEvent {
  /** The task version the write made. */
  version: number
  response: StreamResponse
}

export interface ListQuery {
  owner: string
  /** Exact tenant to match (null = made in no tenant). Only sent to stores that declare `filtersTenant`. */
  tenant?: string | null
  /** Exact scope set to match (null = a session's tasks). Only sent to stores that declare `filtersScope`. */
  scope?: string | null
  contextId?: string
  states?: readonly TaskState[]
  /** Epoch ms; only tasks whose status timestamp is at or after it. */
  statusAfter?: number
  /** 1..100 */
  pageSize: number
  /** A cursor this store returned as `nextCursor`. */
  cursor?: string
  /** A hint: the caller will drop artifacts, so the store may leave them out. */
  includeArtifacts?: boolean
}

export interface ListPage {
  /** Newest status timestamp first; ties broken by id, descending. */
  records: TaskRecord[]
  /** Matches before pagination. */
  total: number
  /** Present when more records follow. */
  nextCursor?: string
}

/** A new task's claim on its message id (Store.claimNewTask). */
export interface NewTaskClaim {
  /**
   * Stores the claimed record in its latest state (version and all): true once stored; false
   * when, the claim having lapsed, a task of the same message id won meanwhile (as
   * createUnlessAccepted). Rejects as create does.
   */
  insert(record: TaskRecord): Promise<boolean>
  /** Gives the claim up, storing nothing. */
  release(): void
}

export interface StoreCapabilities {
  /** `list` honours `ListQuery.tenant`; otherwise the exchange filters the owner's tasks itself. */
  filtersTenant?: boolean
  /** `list` honours `ListQuery.scope`; otherwise the exchange filters the owner's tasks itself. */
  filtersScope?: boolean
  /**
   * No other process writes this store's tasks (MemoryStore; SqliteStore, one process per file).
   * The exchange may then hold a new task in the process while its run's first turn lasts and
   * insert it once, in its latest state (run/pending-writes.ts). Absent on a store replicas share: there
   * the task is inserted before its run starts, so a message sent at once to two replicas runs once.
   */
  oneProcess?: boolean
  /**
   * A trim (`trimSettled`) is a statement and a commit of its own that reads the whole tier (the
   * SQL stores): the exchange trims a tier at its first settle and then at every
   * ⌊bound / 8⌋-th settle in this process, so up to that many less one wait past the bound (per
   * replica). Absent: every settle trims, as MemoryStore's trim costs next to nothing.
   */
  pacedTrims?: boolean
}

/** A webhook registered on one task; `owner` is the task's owner, kept for per-owner bounds. */
export interface PushConfigRecord {
  /** Unique within its task. */
  id: string
  taskId: string
  owner: string
  url: string
  token?: string
  authentication?: { scheme: string; credentials?: string }
  /** Epoch milliseconds; the per-task bound deletes the oldest first. */
  createdAt: number
}

/**
 * Push-notification configs, keyed by (taskId, id). Every store keeps them: deleting a task (by
 * `delete` or `trimSettled`) also deletes its configs, so a trimmed task leaves no webhook behind.
 */
export interface PushConfigStore {
  /** Inserts, or replaces the config with the same (taskId, id). */
  putPushConfig(record: PushConfigRecord): Promise<void>
  getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined>
  /** The task's configs, oldest first (createdAt, then id). */
  listPushConfigs(taskId: string): Promise<PushConfigRecord[]>
  /**
   * True when the store can tell at once, without a query, that the event of the task's write
   * that made `version` goes to no config (the exchange then hands the event to no push delivery);
   * false when it cannot tell so. Most events are of tasks without configs: this spares each a lookup.
   */
  noPushConfigsFor?(taskId: string, version: number): boolean
  /**
   * From now on writes the push outbox's rows (`<schema>.outbox`, see push-outbox) for the task's
   * configs in the same transaction as each task write that carries its event, so a crash between
   * the two cannot lose the event. Resolves false, changing nothing, when that table is not in the
   * store's database.
   */
  queuePushOutbox?(schema: string): Promise<boolean>
  /**
   * Whether the store can insert `job` in the write that hands a task to it (TaskChanges.job):
   * true when the job's table is in the store's own database (PostgresStore, with PgBossJobQueue on
   * the same database). Absent or false: ctx.enqueue queues the job first, then writes the task.
   */
  writesJobRow?(job: PgBossJobRow): Promise<boolean>
  /** The configs whose outbox rows the write that made `version` wrote with it; undefined when it wrote none. */
  outboxedFor?(taskId: string, version: number): string[] | undefined
  /** Removing an absent config is not an error. */
  deletePushConfig(taskId: string, id: string): Promise<void>
  /** Removes every config of these tasks; absent ones are not an error. */
  deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void>
}

/** A committed task write (`version` is the version it made), or `resync`: some may have been missed. */
export type TaskNote = { taskId: string; version: number } | { resync: true }

/**
 * Committed task writes of every process on the store's database, as they commit (PostgresStore:
 * LISTEN/NOTIFY). The exchange cuts a run another replica canceled and wakes the followers of a
 * task another replica runs; they read the store, notes carry no task.
 */
export interface TaskNotifications {
  /**
   * Hears every note from now on; the first listener opens the listening connection and the last
   * to leave closes it. After a reconnect every listener hears `resync`.
   */
  listen(listener: (note: TaskNote) => void): () => void
  /** False while the listening connection is down (followers read the store on a timer meanwhile). */
  readonly live: boolean
}

export interface Store extends PushConfigStore {
  readonly capabilities?: StoreCapabilities
  /** Limit counters in the store's database, shared by the replicas on it; absent: counted per process. */
  readonly counters?: LimitCounters
  /** Where oversized artifact content is kept, in the store's database; absent: in the process. */
  readonly artifactFiles?: ArtifactFiles
  /** Writes of other processes on the same database as they commit; absent: followers poll. */
  readonly notifications?: TaskNotifications
  /**
   * Resolves once the store can serve: its database reached and holding every table and column it
   * uses; rejects with the reason (PostgresStore, PrismaStore and SqliteStore: a TaskStoreSchemaError
   * naming what to migrate). An app awaits `store.ready?.()` before it listens, to fail at start
   * rather than at the first request. Absent: ready once made.
   */
  ready?(): Promise<void>
  /**
   * Stores a new record (version 1). Rejects a duplicate id, and with NotJsonEncodableError (as
   * `encodeJson` throws it) a task JSON cannot carry or holding U+0000 or a lone surrogate in any
   * string or key, so every store keeps exactly the same tasks.
   */
  create(record: TaskRecord): Promise<void>
  /**
   * Optional: {@link create}, unless one of the owner's records has accepted one of the record's
   * message ids already; then it stores nothing and resolves false. The exchange then accepts a new
   * message with this one call, and looks for a repeat ({@link findByMessageId}) only when it
   * resolves false; without it, it looks first and creates after.
   */
  createUnlessAccepted?(record: TaskRecord): Promise<boolean>
  /**
   * Optional, on a store replicas share: takes the new record's one message id for a run this
   * process is about to start, so that the task is inserted once, in the state the run's first
   * turn leaves it, as on a one-process store. Resolves undefined when the id is taken: with
   * `unlessAccepted` by any of the owner's tasks (as createUnlessAccepted); else only by this very
   * task, the same message given to another replica at once, which waits for that replica's
   * insert and then loses, before its handler starts. The claim commits with the insert: a
   * process that stops between them leaves neither. The caller inserts or releases it soon (a
   * claim is held for about a second at most).
   */
  claimNewTask?(record: TaskRecord, unlessAccepted: boolean): Promise<NewTaskClaim | undefined>
  get(id: string): Promise<TaskRecord | undefined>
  /**
   * Writes the changes when the stored version equals `expectedVersion`, bumping the version (by
   * {@link versionsOf}) and `updatedAt`. Returns the new record, or undefined when the version moved on or the task is gone.
   * Rejects a task `create` would reject, changing nothing.
   */
  update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined>
  list(query: ListQuery): Promise<ListPage>
  /** Removes a record and its push configs; removing an absent one is not an error. */
  delete(id: string): Promise<void>
  /**
   * The kept events of the task after `version`, oldest first: what a follower on another replica
   * has not sent yet. Events are kept for a while only; a follower that finds a gap sends the task.
   * Absent: followers on other replicas send each version they read as the task.
   */
  eventsSince?(taskId: string, version: number): Promise<StoredEvent[]>
  /** The owner's records that accepted a client message with this id. */
  findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]>
  /**
   * Moves the lease of each of these tasks that `runner` holds to `until`; others are left alone.
   * Absent: the store keeps no leases, and the tasks of a stopped process stay as they were.
   */
  renewLeases?(runner: string, taskIds: readonly string[], until: number): Promise<void>
  /**
   * Up to `limit` submitted or working tasks whose lease expired before `now`, or which have none
   * (written by a runtime without leases), oldest lease first: what the sweep settles.
   */
  expiredRuns?(now: number, limit: number): Promise<TaskRecord[]>
  /**
   * Optional retention trimmer: deletes the oldest settled (terminal) records of exactly this tier
   * beyond `keep` (with their push configs), and returns their ids. Without it the exchange trims
   * through list and delete.
   */
  trimSettled?(tier: Viewer, keep: number): Promise<string[]>
}

/** A store rejects a cursor it did not issue. */
export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`not a page token this server issued: ${JSON.stringify(cursor.slice(0, 64))}`)
    this.name = 'InvalidCursorError'
  }
}

/** The task's status time in epoch ms: its status timestamp, else `fallback`. */
export function taskTime(task: Task, fallback: number): number {
  const parsed = Date.parse(task.status.timestamp ?? '')
  return Number.isNaN(parsed) ? fallback : parsed
}

/** A record's status time: what lists order and page by (the record's updatedAt when untimed). */
export const statusTime = (record: TaskRecord): number => taskTime(record.task, record.updatedAt)

let lastTier: { owner: string; tenant: string | null; scope: string | null; key: string } | undefined

/** A retention tier's key (owner × tenant × scope set); the last one is kept, as one caller's sends come in runs. */
export function tierKey(owner: string, tenant: string | null, scope: string | null): string {
  if (lastTier?.owner !== owner || lastTier.tenant !== tenant || lastTier.scope !== scope) lastTier = { owner, tenant, scope, key: JSON.stringify([owner, tenant, scope]) }
  return lastTier.key
}
