/**
 * The push outbox's rows written by the task write itself: when a PushOutbox has started on the
 * store's database, PostgresStore's version-guarded write that carries its event also inserts one
 * outbox row per push config of the task, in the same statement. A process that dies after the
 * commit but before handing the event to the outbox loses nothing: the row is there, and the
 * outbox's sweep wakes it. Rows are what PushOutbox writes itself (push/outbox/outbox-sql.ts):
 * the config's target as webhookTarget builds it, the event as the body (for a 0.3 config the task
 * the write left, as `{task}`: 0.3 receivers are sent the task), the writer's trace context for the delivery to continue.
 * @module
 */
import type { StreamResponse } from '../../../wire/types.js'
import { raw } from 'sql-template-tag'
import { traceCarrier } from '../../../trace/tracing.js'
import { eventRows, eventVersion, type keepingEvents } from './notifications.js'
import { sql, type Sql } from '../sql.js'

/** A lower-case SQL identifier, as PushOutbox requires of its schema. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Checks `schema` before it is spliced into SQL (it names a schema, it cannot be bound). */
export function outboxTable(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`push outbox schema "${schema}" must be a lower-case SQL identifier like a2a_push`)
  return `${schema}.outbox`
}

/** Whether the outbox table exists where the store writes. */
export const outboxExists = (table: string): Sql => sql`SELECT to_regclass(${table}) IS NOT NULL AS "exists"`

/**
 * CTEs for {@link keepingEvents}' statement: the rows of the task's configs, from the row
 * `"written"` (returning its task: a 0.3 config's body is built from it, never bound a second
 * time), and the column `outboxed` naming the configs they were written for.
 */
export function outboxRows(table: string, events: readonly StreamResponse[]): { ctes: Sql; columns: Sql } {
  const into = raw(`INSERT INTO ${table} (task_id, config_id, owner, version, target, body, trace_context)`)
  const traceContext = traceCarrier()
  // The authentication column holds the config's generation too (sql/rows.ts): the target names it apart, as webhookTarget does.
  const auth = sql`c."authentication"::jsonb`
  return {
    ctes: sql`, "outboxed" AS (${into}
      SELECT c."taskId", c."id", c."owner", ${eventVersion(events)},
        jsonb_strip_nulls(jsonb_build_object('url', c."url", 'token', c."token", 'authentication', NULLIF(${auth} - 'generation', '{}'), 'generation', ${auth} -> 'generation')),
        CASE WHEN ${auth} ->> 'generation' = '0.3' THEN jsonb_build_object('task', w."task") ELSE e."event" END,
        ${traceContext && JSON.stringify(traceContext)}::jsonb
      FROM ${eventRows(events)} JOIN "A2APushConfig" c ON c."taskId" = w."id" RETURNING config_id)`,
    columns: sql`, ARRAY(SELECT DISTINCT config_id FROM "outboxed") AS "outboxed"`,
  }
}
