/**
 * A queued job as a row the task's WORKING write inserts itself, in the same statement, so the
 * job and the write land together or not at all (ctx.enqueue on PgBossJobQueue with PostgresStore
 * on one database). The fields are pg-boss's `send` options, already resolved by the queue.
 * @module
 */

/** One pg-boss job, as PgBossJobQueue would `send` it. */
export interface PgBossJobRow {
  /** pg-boss's schema (a checked SQL identifier): the row goes to `<schema>.job`. */
  schema: string
  /** Which database the queue writes to (postgres/job-rows.ts `databaseIdentity`): a store on another writes no row. */
  database: string
  /** The queue's name (its `<schema>.queue` row gives the policy, as pg-boss's insert takes it). */
  queue: string
  /** The job's id, made from its key: a second insert of it inserts nothing. */
  id: string
  data: unknown
  retryLimit: number
  /** Seconds, as pg-boss counts them. */
  retryDelay: number
  retryBackoff: boolean
  expireInSeconds: number
  deadLetter: string
}
