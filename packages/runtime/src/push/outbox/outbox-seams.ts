/**
 * Where the push outboxes of PostgreSQL and MySQL differ: the {@link OutboxRows} (the outbox
 * table's statements in the database's SQL) and the {@link OutboxEngine} (what runs drain jobs:
 * pg-boss, or a claim loop over the MySQL table). Everything else (outbox.ts, drain.ts) is shared.
 * @module
 */
import type { WebhookTarget } from '../webhook-client.js'

/** A drain of one push config's pending rows (drain.ts). */
export interface DrainJob {
  id: string
  data: { taskId: string; configId: string }
  /** Attempts made on the row this job owns (pg-boss: its retries; MySQL: the head row's attempts). */
  retryCount: number
  retryLimit: number
}

/** One row as a drain claims it. */
export interface OutboxRow {
  id: string
  task_id: string
  config_id: string
  version: number
  target: WebhookTarget
  body: unknown
  trace_context: Record<string, string> | null
  attempts: number
  /** The newest version delivered to the row's config, the version guard. */
  delivered_version: number | null
}

/** A row the outbox writes itself, for a store that does not write them with its task writes. */
export interface NewOutboxRow {
  task_id: string
  config_id: string
  owner: string
  version: number
  target: WebhookTarget
  body: unknown
  trace_context: Record<string, string> | null
}

export interface DeadLetter {
  id: string
  taskId: string
  configId: string
  owner: string
  version: number
  attempts: number
  lastError: string | null
  deadSince: Date
}

/** A dead row as the tables' statements read it. */
export interface DeadRow {
  id: string | number
  task_id: string
  config_id: string
  owner: string
  version: number
  attempts: number
  last_error: string | null
  /** PostgreSQL's timestamptz, MySQL's time in ms. */
  updated_at: Date | number
}

export const deadLetterOf = (row: DeadRow): DeadLetter => ({
  id: String(row.id),
  taskId: row.task_id,
  configId: row.config_id,
  owner: row.owner,
  version: row.version,
  attempts: row.attempts,
  lastError: row.last_error,
  deadSince: new Date(row.updated_at),
})

/** The outbox table's statements, on the outbox's connection. */
export interface OutboxRows {
  insert(rows: readonly NewOutboxRow[]): Promise<void>
  /**
   * Leases the config's oldest pending row to `job` for `leaseMs`, unless another job leases it or
   * owns its retries; undefined when there is no such row.
   */
  claim(taskId: string, configId: string, job: DrainJob, leaseMs: number): Promise<OutboxRow | undefined>
  /** Marks the row delivered and forgets the config's earlier delivered rows (the newest is the version guard). */
  delivered(row: OutboxRow): Promise<void>
  /** Deletes a row older than one delivered: it would arrive after a later state. */
  stale(row: OutboxRow): Promise<void>
  /** An attempt failed that will be retried: `job`'s retries own the row meanwhile. */
  failed(row: OutboxRow, error: string, job: DrainJob): Promise<void>
  /** The last attempt failed: kept as dead for deadLetters() and redeliver(). */
  dead(row: OutboxRow, error: string): Promise<void>
  /** Forgets delivered rows older than `deliveredMs` and dead ones older than `deadMs`. */
  prune(deliveredMs: number, deadMs: number): Promise<void>
  deadLetters(limit: number): Promise<DeadLetter[]>
  /** Puts these dead rows back in line with fresh attempts; answers their configs. */
  redeliver(ids: readonly string[]): Promise<DrainJob['data'][]>
}

/** What runs the drain jobs. */
export interface OutboxEngine {
  /** Creates the table (and the queue) when missing. */
  prepare(): Promise<void>
  /** Starts `concurrency` workers on this replica, each running `drain` for the jobs it takes. */
  work(drain: (job: DrainJob) => Promise<void>, concurrency: number): Promise<void>
  /** Has the configs drained soon, on any replica. */
  wake(configs: readonly DrainJob['data'][]): Promise<void>
  /** Wakes the configs whose rows no worker will reach (a replica died); `quietMs`: how long such a row has been left alone. */
  sweep(quietMs: number): Promise<void>
  /** Stops the workers, a drain in flight finishing first. */
  stop(): Promise<void>
}
