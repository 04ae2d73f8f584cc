/**
 * The outbox table and its statements. One row per (event, push config): pending until it is
 * delivered, or dead once its attempts are spent. The rows of one config are delivered in task
 * version order, one at a time across every replica: a worker leases the config's oldest pending
 * row and only that row (a row it has failed on belongs to that job's pg-boss retries), and
 * a row older than one already delivered is dropped, so the final state is the last word even
 * when two replicas' inserts commit out of order.
 * @module
 */
import type pg from 'pg'
import { deadLetterOf, type DeadRow, type OutboxRow, type OutboxRows } from './outbox-seams.js'

/** The table lives in the schema pg-boss uses, so reliable delivery keeps to one schema. */
export function outboxDdl(schema: string): string {
  return `
    BEGIN;
    SELECT pg_advisory_xact_lock(hashtext('${schema}.outbox'));
    CREATE TABLE IF NOT EXISTS ${schema}.outbox (
      id bigserial PRIMARY KEY,
      task_id text NOT NULL,
      config_id text NOT NULL,
      owner text NOT NULL,
      version integer NOT NULL,
      target jsonb NOT NULL,
      body jsonb NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      -- The pg-boss job whose retries own this row once an attempt on it failed.
      job_id uuid,
      lease_until timestamptz,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- The W3C trace context of the write (traceparent, tracestate), continued by the delivery; added after the table's first release.
    ALTER TABLE ${schema}.outbox ADD COLUMN IF NOT EXISTS trace_context jsonb;
    CREATE INDEX IF NOT EXISTS outbox_pending ON ${schema}.outbox (task_id, config_id, version, id) WHERE state = 'pending';
    CREATE INDEX IF NOT EXISTS outbox_delivered ON ${schema}.outbox (task_id, config_id, version) WHERE state = 'delivered';
    CREATE INDEX IF NOT EXISTS outbox_dead ON ${schema}.outbox (updated_at) WHERE state = 'dead';
    COMMIT;`
}

export function outboxStatements(schema: string) {
  const table = `${schema}.outbox`
  return {
    /** $1: a JSON array of rows; answers each row's config once. */
    insert: `
      INSERT INTO ${table} (task_id, config_id, owner, version, target, body, trace_context)
      SELECT task_id, config_id, owner, version, target, body, trace_context
      FROM jsonb_to_recordset($1::jsonb) AS r(task_id text, config_id text, owner text, version integer, target jsonb, body jsonb, trace_context jsonb)`,
    /**
     * Leases the config's oldest pending row for $4 ms to job $3, unless it is leased or another
     * job owns its retries. Also answers the newest version delivered to the config.
     */
    claim: `
      WITH head AS (
        SELECT id FROM ${table}
        WHERE task_id = $1 AND config_id = $2 AND state = 'pending'
        ORDER BY version, id
        LIMIT 1
      )
      UPDATE ${table} o SET lease_until = now() + $4 * interval '1 millisecond'
      FROM head
      WHERE o.id = head.id AND o.state = 'pending'
        AND (o.job_id IS NULL OR o.job_id = $3)
        AND (o.lease_until IS NULL OR o.lease_until < now())
      RETURNING o.id, o.task_id, o.config_id, o.version, o.target, o.body, o.trace_context, o.attempts,
        (SELECT max(d.version) FROM ${table} d
          WHERE d.task_id = o.task_id AND d.config_id = o.config_id AND d.state = 'delivered') AS delivered_version`,
    /** Marks $1 delivered and forgets the config's earlier delivered rows (the newest one is the version guard). */
    delivered: `
      WITH done AS (
        UPDATE ${table} SET state = 'delivered', attempts = attempts + 1, lease_until = NULL, job_id = NULL, last_error = NULL, updated_at = now()
        WHERE id = $1
        RETURNING task_id, config_id
      )
      DELETE FROM ${table} o USING done
      WHERE o.task_id = done.task_id AND o.config_id = done.config_id AND o.state = 'delivered' AND o.id <> $1`,
    /** An event older than one delivered: it would arrive after a later state. */
    stale: `DELETE FROM ${table} WHERE id = $1`,
    /** A failed attempt that will be retried by job $3 ($2: the error). */
    failed: `
      UPDATE ${table} SET attempts = attempts + 1, last_error = $2, job_id = $3, lease_until = NULL, updated_at = now()
      WHERE id = $1`,
    /** The last attempt failed: dead-lettered, kept for redeliver(). */
    dead: `
      UPDATE ${table} SET state = 'dead', attempts = attempts + 1, last_error = $2, job_id = NULL, lease_until = NULL, updated_at = now()
      WHERE id = $1`,
    /**
     * The oldest pending row of every config, for the sweep to find those no job will reach: quiet
     * for $1 ms and not leased (its wake-up was lost with a crashed replica, or its lease ran
     * out), or owned by a job pg-boss no longer holds (job_id, for the caller to check).
     */
    stranded: `
      SELECT DISTINCT ON (task_id, config_id) task_id, config_id, job_id, lease_until < now() AS lease_expired, updated_at < now() - $1 * interval '1 millisecond' AS quiet
      FROM ${table}
      WHERE state = 'pending'
      ORDER BY task_id, config_id, version, id`,
    /** Lets a config's head row be claimed by any job again. */
    release: `UPDATE ${table} SET job_id = NULL, lease_until = NULL, updated_at = now() WHERE task_id = $1 AND config_id = $2 AND state = 'pending'`,
    /** Forgets delivered rows older than $1 ms (past any late event) and dead ones older than $2 ms. */
    prune: `
      DELETE FROM ${table}
      WHERE (state = 'delivered' AND updated_at < now() - $1 * interval '1 millisecond')
         OR (state = 'dead' AND updated_at < now() - $2 * interval '1 millisecond')`,
    deadLetters: `
      SELECT id, task_id, config_id, owner, version, attempts, last_error, updated_at FROM ${table}
      WHERE state = 'dead' ORDER BY updated_at, id LIMIT $1`,
    /** Puts dead rows $1 (ids) back to pending with fresh attempts; answers their configs. */
    redeliver: `
      UPDATE ${table} SET state = 'pending', attempts = 0, job_id = NULL, lease_until = NULL, updated_at = now()
      WHERE id = ANY($1::bigint[]) AND state = 'dead'
      RETURNING task_id, config_id`,
  }
}

/** The statements on `pool`, as drain.ts and outbox.ts call them. */
export function pgOutboxRows(pool: Pick<pg.Pool, 'query'>, schema: string): OutboxRows & { sql: ReturnType<typeof outboxStatements> } {
  const sql = outboxStatements(schema)
  return {
    sql,
    insert: async (rows) => void (await pool.query(sql.insert, [JSON.stringify(rows)])),
    claim: async (taskId, configId, job, leaseMs) => (await pool.query<OutboxRow>(sql.claim, [taskId, configId, job.id, leaseMs])).rows[0],
    delivered: async (row) => void (await pool.query(sql.delivered, [row.id])),
    stale: async (row) => void (await pool.query(sql.stale, [row.id])),
    failed: async (row, error, job) => void (await pool.query(sql.failed, [row.id, error, job.id])),
    dead: async (row, error) => void (await pool.query(sql.dead, [row.id, error])),
    prune: async (deliveredMs, deadMs) => void (await pool.query(sql.prune, [deliveredMs, deadMs])),
    deadLetters: async (limit) => (await pool.query<DeadRow>(sql.deadLetters, [limit])).rows.map(deadLetterOf),
    async redeliver(ids) {
      const { rows } = await pool.query<{ task_id: string; config_id: string }>(sql.redeliver, [ids])
      return rows.map((row) => ({ taskId: row.task_id, configId: row.config_id }))
    },
  }
}
