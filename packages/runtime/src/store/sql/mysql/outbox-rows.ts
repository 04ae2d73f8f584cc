/**
 * The push outbox's rows written by MysqlStore's task write itself, in its transaction: when a
 * MysqlPushOutbox has started on the store's database, the version-guarded update that carries
 * events is followed by one insert of a row per (event, push config of the task), so a process
 * that dies after the commit but before handing the events to the outbox loses none (another
 * replica's claim loop finds the rows). Rows are what the outbox writes itself
 * (push/outbox/mysql-outbox-sql.ts): the config's target as webhookTarget builds it, the event
 * kept in A2ATaskEvent just before as the body (for a 0.3 config the task as written, as
 * `{task}`), read from the rows the transaction wrote, so nothing is bound twice.
 * @module
 */
import { raw } from 'sql-template-tag'
import { traceCarrier } from '../../../trace/tracing.js'
import { sql, type Sql } from '../sql.js'
import type { TaskUpdate } from '../statements.js'
import { DATABASE_MS } from './clock.js'

/** A lower-case SQL identifier, as MysqlPushOutbox names its table. */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,63}$/

/** Checks `table` before it is spliced into SQL (it names a table, it cannot be bound). */
export function outboxTable(table: string): string {
  if (!TABLE_NAME.test(table)) throw new Error(`push outbox table "${table}" must be a lower-case SQL identifier like a2a_push_outbox`)
  return table
}

/** Whether the outbox table is in the store's database. */
export const outboxExists = (table: string): Sql => sql`SELECT COUNT(*) AS "found" FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ${table}`

/** The session variable the update's count is kept in: the follow-ups' guard. */
export const LANDED = sql`@a2a_landed > 0`

/** Keeps the update's count for the follow-ups after it (ROW_COUNT() only tells of the last statement). */
export const keepLanded = sql`SET @a2a_landed = ROW_COUNT()`

/** The generation the config's authentication column holds beside its authentication (sql/rows.ts). */
const generation = sql`JSON_UNQUOTE(JSON_EXTRACT(c."authentication", '$.generation'))`

/** The rows of the write's events for each config of the task, when the update landed. */
export function outboxInsert(table: string, change: TaskUpdate): Sql {
  const made = change.expectedVersion + change.versions
  const traceContext = traceCarrier()
  // JSON_MERGE_PATCH drops the null members: the target has what webhookTarget would give it, but
  // a 0.3 config's authentication of none, `{}` once its generation is out, which the outbox drops as it reads.
  const target = sql`JSON_MERGE_PATCH('{}', JSON_OBJECT('url', c."url", 'token', c."token",
    'authentication', JSON_REMOVE(c."authentication", '$.generation'), 'generation', ${generation}))`
  return sql`INSERT INTO ${raw(`"${outboxTable(table)}"`)} (task_id, config_id, owner, version, target, body, trace_context, due_at, created_at, updated_at)
    SELECT c."taskId", c."id", c."owner", e."version", ${target},
      CASE WHEN ${generation} = '0.3' THEN JSON_OBJECT('task', JSON_EXTRACT(t."task", '$')) ELSE e."event" END,
      ${traceContext && JSON.stringify(traceContext)}, ${raw(DATABASE_MS)}, ${raw(DATABASE_MS)}, ${raw(DATABASE_MS)}
    FROM "A2ATask" t
    JOIN "A2ATaskEvent" e ON e."taskId" = t."id" AND e."version" BETWEEN ${made - change.events.length + 1} AND ${made}
    JOIN "A2APushConfig" c ON c."taskId" = t."id"
    WHERE t."id" = ${change.id} AND t."version" = ${made} AND ${LANDED}
    ORDER BY e."version", c."createdAt", c."id"`
}

/** The configs the write's rows went to, as a column of the read after the update. */
export const outboxedColumn = (table: string, change: TaskUpdate): Sql =>
  sql`, (SELECT JSON_ARRAYAGG(o.config_id) FROM ${raw(`"${outboxTable(table)}"`)} o
    WHERE o.task_id = ${change.id} AND o.version = ${change.expectedVersion + change.versions}) AS "outboxed"`
