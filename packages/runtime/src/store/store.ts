/**
 * The storage contract for tasks: a small core every store implements (this file), and named
 * capabilities a store may add, each changing what the exchange does (capabilities.ts). A store
 * keeps records and answers queries; who may see a record is decided by the exchange, which
 * matches every record against the caller's owner, tenant and scope set. Run the conformance suite
 * from `@a2a-agent/runtime/testing` against any store: it checks the core and each capability the
 * store declares.
 * @module
 */
import type { CapabilityFlags, CapabilityName } from './capabilities.js'
import type { ListPage, ListQuery, PushConfigRecord, TaskChanges, TaskRecord } from './records.js'

export * from './records.js'
export type { TaskNotifications } from './capabilities.js'

/**
 * Push-notification configs, keyed by (taskId, id). Every store keeps them: deleting a task (by
 * `delete` or a retention trim) also deletes its configs, so a trimmed task leaves no webhook behind.
 */
export interface PushConfigStore {
  /** Inserts, or replaces the config with the same (taskId, id). */
  putPushConfig(record: PushConfigRecord): Promise<void>
  getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined>
  /** The task's configs, oldest first (createdAt, then id). */
  listPushConfigs(taskId: string): Promise<PushConfigRecord[]>
  /** Removing an absent config is not an error. */
  deletePushConfig(taskId: string, id: string): Promise<void>
  /** Removes every config of these tasks; absent ones are not an error. */
  deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void>
}

/**
 * What a store written before capabilities declared: flags beside optional members (see capabilities.ts).
 * @deprecated Declare `capabilities` as a list of capability names instead.
 */
export type StoreCapabilities = CapabilityFlags

/** The core every store implements: 11 methods, and optionally `ready` and its capabilities. */
export interface Store extends PushConfigStore {
  /**
   * The capabilities the store has (capabilities.ts), each implemented by its own members:
   * `['filtersTenant', 'leases', …]`. Read once, at the store's first lookup (capabilityOf).
   */
  readonly capabilities?: readonly CapabilityName[] | StoreCapabilities
  /**
   * Resolves once the store can serve: its database reached and holding every table and column it
   * uses; rejects with the reason (PostgresStore, PrismaStore and SqliteStore: a TaskStoreSchemaError
   * naming what to migrate). An app awaits `store.ready?.()` before it listens, to fail at start
   * rather than at the first request. Absent: ready once made.
   */
  ready?(): Promise<void>
  /**
   * Stores a new record, with the version it carries (1, or more for a task held in the process
   * until its first turn ended: capabilities oneProcess and claims). Rejects a duplicate id, and
   * with NotJsonEncodableError (as `encodeJson` throws it) a task JSON cannot carry or holding
   * U+0000 or a lone surrogate in any string or key, so every store keeps exactly the same tasks.
   */
  create(record: TaskRecord): Promise<void>
  get(id: string): Promise<TaskRecord | undefined>
  /**
   * Writes the changes when the stored version equals `expectedVersion`, bumping the version (by
   * versionsOf) and `updatedAt`. Returns the new record, or undefined when the version moved on or the task is gone.
   * Rejects a task `create` would reject, changing nothing.
   */
  update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined>
  /** The owner's records matching the query; `tenant` and `scope` come only to a store with filtersTenant / filtersScope. */
  list(query: ListQuery): Promise<ListPage>
  /** Removes a record and its push configs; removing an absent one is not an error. */
  delete(id: string): Promise<void>
  /** The owner's records that accepted a client message with this id. */
  findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]>
}
