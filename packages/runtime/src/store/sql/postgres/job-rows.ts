/**
 * The job row of ctx.enqueue written by the task's WORKING write itself (PostgresStore with
 * PgBossJobQueue on the same database): one more CTE of the version-guarded update, inserting from
 * the row `"written"`, so a write that loses on the version, or does not commit, leaves no job.
 * The row is the one pg-boss 10.4.2's `send` inserts (its plans.js `insertJob`) for the options
 * PgBossJobQueue passes: no priority, start now, no singleton, the policy and the retention of the
 * queue's row, and a second insert of the same id inserting nothing (ON CONFLICT DO NOTHING).
 * @module
 */
import { raw } from 'sql-template-tag'
import type { PgBossJobRow } from '../../job-row.js'
import { sql, type Sql } from '../sql.js'

/** A lower-case SQL identifier, as PgBossJobQueue requires of its schema. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Checks `schema` before it is spliced into SQL (it names a schema, it cannot be bound). */
export function jobSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`job queue schema "${schema}" must be a lower-case SQL identifier like a2a_jobs`)
  return schema
}

/**
 * A CTE for {@link keepingEvents}'s statement. A queue with no row (deleted since the queue made
 * it) fails the whole write on the job's NOT NULL name, rather than leave the task WORKING with no job.
 */
export function jobRowCte(job: PgBossJobRow): { ctes: Sql; columns: Sql } {
  const schema = jobSchema(job.schema)
  const into = raw(
    `INSERT INTO ${schema}.job (id, name, data, priority, start_after, singleton_key, singleton_on, dead_letter, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy)`,
  )
  const queue = raw(`${schema}.queue`)
  // As insertJob computes them: start_after is now(), keep_until start_after plus the queue's
  // retention (else 14 days), a backoff's delay at least a second.
  return {
    ctes: sql`, "job" AS (${into}
      SELECT ${job.id}::uuid, q.name, ${JSON.stringify(job.data)}::jsonb, 0, now(), NULL, NULL, COALESCE(${job.deadLetter}, q.dead_letter),
        ${job.expireInSeconds}::numeric * interval '1s',
        now() + CAST(COALESCE((q.retention_minutes * 60)::text, '14 days') AS interval),
        ${job.retryLimit}::int, CASE WHEN ${job.retryBackoff}::bool THEN GREATEST(${job.retryDelay}::int, 1) ELSE ${job.retryDelay}::int END, ${job.retryBackoff}::bool,
        q.policy
      FROM "written" LEFT JOIN ${queue} q ON q.name = ${job.queue}
      ON CONFLICT DO NOTHING)`,
    columns: sql``,
  }
}

/**
 * Names the database a connection reaches, the same from every connection to it: its name, its
 * server's start time and the oid of the job schema (a same-named database on another server, or
 * another schema, differs). The queue and the store each ask once; the store writes job rows when they agree.
 */
export const databaseIdentity = (schema: string): Sql =>
  sql`SELECT current_database() || '/' || pg_postmaster_start_time()::text || '/' || COALESCE(to_regnamespace(${jobSchema(schema)})::oid::text, '-') AS "identity"`
