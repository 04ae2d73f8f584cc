/**
 * The records a store keeps and the queries it answers: tasks, their writes and leases, list
 * queries and pages, push configs. The contract over them is store.ts (the core every store
 * implements) and capabilities.ts (what a store may add).
 * @module
 */
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
   * the other replicas receive every event (capability keptEvents); others ignore it.
   */
  event?: StreamResponse
  /**
   * Instead of `event`: the events of several changes written as one (a run's writes within one
   * turn). The version grows by their number, and each is kept under its own version, in order
   * (the first under expectedVersion + 1), as if each had been its own write.
   */
  events?: readonly StreamResponse[]
  /** A job row inserted with the write, in its transaction; only given to a store with the capability jobRows that said yes for it. */
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

/** A new task's claim on its message id (capability claims: claimNewTask). */
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

/** A committed task write (`version` is the version it made), or `resync`: some may have been missed. */
export type TaskNote = { taskId: string; version: number } | { resync: true }

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
