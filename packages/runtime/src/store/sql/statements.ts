/**
 * The SQL stores' statements, one builder per statement, over the tables of prisma/a2a.prisma.
 * Values are always bound, never spliced: every `${…}` below is a parameter or a nested fragment.
 * Identifiers are double-quoted and the executor renders them in its database's quotes; the few
 * statements whose syntax differs between databases take the {@link Dialect} (dialect.ts).
 * @module
 */
import type { Viewer } from '../../core/principal.js'
import { TERMINAL_STATES, type StreamResponse } from '../../wire/types.js'
import type { Keyset } from '../cursor.js'
import { taskTime, type ListQuery, type PushConfigRecord, type RunLease, type TaskRecord } from '../store.js'
import type { PgBossJobRow } from '../job-row.js'
import { toDate } from './rows.js'
import type { Dialect } from './dialect.js'
import { join, shaped, sql, type Sql } from './sql.js'

/** Ids per `IN (…)` list, well under SQLite's and PostgreSQL's bound-parameter limits. */
export const CHUNK = 500

export const chunks = <T>(items: readonly T[]): T[][] => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK))

const SETTLED = [...TERMINAL_STATES]

/** The states a run holds a task in: what an expired lease leaves behind. */
const RUNNING = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']

/** Newest status first, ties by id descending: the keyset order of cursor.ts. */
const NEWEST_FIRST = sql`ORDER BY "statusTime" DESC, "id" DESC`

/** `column = value`, or `column IS NULL` for null, which `=` never matches. */
const matches = (column: Sql, value: string | null): Sql => (value === null ? sql`${column} IS NULL` : sql`${column} = ${value}`)

const whereAll = (conditions: Sql[]): Sql => join(conditions, ' AND ', 'WHERE ')

const MESSAGE_COLUMNS = ['owner', 'messageId', 'taskId']

const PUSH_CONFIG_COLUMNS = ['taskId', 'id', 'owner', 'url', 'token', 'authentication', 'createdAt']

export const selectTask = (id: string): Sql => sql`SELECT * FROM "A2ATask" WHERE "id" = ${id}`

const TASK_COLUMNS = sql`("id", "contextId", "owner", "tenant", "scope", "skill", "version", "task", "messageIds", "repliedWithMessage", "createdAt", "updatedAt", "statusState", "statusTime", "runner", "leaseUntil")`

/** The record's values in {@link TASK_COLUMNS}' order; `taskJson` is the task already checked and encoded (encodeJson). */
export function taskValues(record: TaskRecord, taskJson: string): Sql {
  const { task } = record
  const { lease } = record
  return sql`${record.id}, ${record.contextId}, ${record.owner}, ${record.tenant}, ${record.scope}, ${record.skill}, ${record.version}, ${taskJson},
      ${JSON.stringify(record.messageIds)}, ${record.repliedWithMessage ?? null}, ${toDate(record.createdAt)}, ${toDate(record.updatedAt)},
      ${task.status.state}, ${toDate(taskTime(task, record.updatedAt))}, ${lease?.runner ?? null}, ${lease ? toDate(lease.until) : null}`
}

/** `taskJson` is the task already checked and encoded (encodeJson). */
export const insertTask = (record: TaskRecord, taskJson: string): Sql => sql`INSERT INTO "A2ATask" ${TASK_COLUMNS} VALUES (${taskValues(record, taskJson)})`

/**
 * The same insert, made only while none of the owner's tasks holds one of the record's message
 * ids (PostgreSQL: its parameters take the columns' types from the insert). Each id is its own
 * equality, never `= ANY(array)`: a plan prepared while the table was small (and kept, generic)
 * matched an array only on the owner, filtering every row of the owner's index range (7 ms at
 * 20,000 rows). Each equality is paired with the owner's, as a whole key: `owner AND (id OR id)`
 * had the same fate for two ids (postgres/plans.test.ts).
 */
export const insertTaskUnlessAccepted = (d: Dialect, record: TaskRecord, taskJson: string): Sql =>
  sql`INSERT INTO "A2ATask" ${TASK_COLUMNS} SELECT ${taskValues(record, taskJson)} ${d.noTable}
    WHERE NOT EXISTS (SELECT 1 FROM "A2ATaskMessage" WHERE ${acceptedAny(record.owner, record.messageIds)})`

const acceptedAny = (owner: string, messageIds: readonly string[]): Sql =>
  messageIds.length
    ? join(
        messageIds.map((id) => sql`("owner" = ${owner} AND "messageId" = ${id})`),
        ' OR ',
      )
    : sql`FALSE`

/**
 * The new task's message-index row, its claim on its one message id (PostgresStore.claimNewTask),
 * made unless the id is taken: by this same task (the same message, given to another replica at
 * once: its key waits for that transaction, then lets nothing in), and with `unlessAccepted` by
 * any of the owner's tasks, probed as {@link insertTaskUnlessAccepted} does.
 */
export function claimMessageId(d: Dialect, owner: string, taskId: string, messageId: string, unlessAccepted: boolean): Sql {
  const rows = unlessAccepted
    ? sql`SELECT ${owner}, ${messageId}, ${taskId} ${d.noTable} WHERE NOT EXISTS (SELECT 1 FROM "A2ATaskMessage" WHERE ${acceptedAny(owner, [messageId])})`
    : sql`VALUES (${owner}, ${messageId}, ${taskId})`
  return d.insertIgnore('A2ATaskMessage', MESSAGE_COLUMNS, rows)
}

/** Undoes {@link claimMessageId}. */
export const unclaimMessageId = (owner: string, taskId: string, messageId: string): Sql =>
  sql`DELETE FROM "A2ATaskMessage" WHERE "owner" = ${owner} AND "messageId" = ${messageId} AND "taskId" = ${taskId}`

export interface TaskUpdate {
  id: string
  expectedVersion: number
  task: TaskRecord['task']
  taskJson: string
  messageIds?: readonly string[]
  repliedWithMessage?: boolean
  lease?: RunLease | null
  /** A job row the write inserts with it (PostgresStore). */
  job?: PgBossJobRow
  /** The events the write publishes, one per version it makes (PostgresStore keeps them for followers on other replicas). */
  events: readonly StreamResponse[]
  /** How many versions the write makes (see versionsOf). */
  versions: number
}

/** Whether the task has push configs, as the write returning it sees them: its event's lookup may be skipped. */
const pushed = (id: string): Sql => sql`EXISTS (SELECT 1 FROM "A2APushConfig" WHERE "taskId" = ${id}) AS "pushed"`

/**
 * Every column but "task": the writer holds the task it wrote, so the database does not encode
 * it again nor the store decode it (PostgreSQL's jsonb output and JSON.parse, per write).
 */
const WRITTEN_COLUMNS = sql`"id", "contextId", "owner", "tenant", "scope", "skill", "version", "messageIds", "repliedWithMessage", "createdAt", "updatedAt", "statusState", "statusTime", "runner", "leaseUntil"`

/** What a statement built on {@link updateTask} (as a CTE `"written"`) answers: the row as written, but its task. */
export const WRITTEN_ROW = sql`${WRITTEN_COLUMNS}, "pushed"`

/**
 * The version-guarded write: it matches nothing once another writer has moved the version, and
 * returns the row as written but its task (see WRITTEN_COLUMNS), with whether the task has push configs (`pushed`). Owner, tenant and scope are never set. `updatedAt` never goes
 * backwards (a clock step back keeps the stored time), and the status time falls back to it when
 * the task carries no timestamp, as MemoryStore does. `withTask` returns the task too, for a
 * statement around it to read (PostgresStore's outbox rows for 0.3 configs) without binding it again.
 */
export function updateTask(change: TaskUpdate, withTask = false): Sql {
  const now = new Date()
  const updatedAt = sql`CASE WHEN "updatedAt" > ${now} THEN "updatedAt" ELSE ${now} END`
  const stamped = taskTime(change.task, Number.NaN)
  const assignments = [
    sql`"version" = ${change.expectedVersion + change.versions}`,
    sql`"updatedAt" = ${updatedAt}`,
    sql`"task" = ${change.taskJson}`,
    sql`"statusState" = ${change.task.status.state}`,
    sql`"statusTime" = ${Number.isNaN(stamped) ? updatedAt : toDate(stamped)}`,
    ...(change.messageIds ? [sql`"messageIds" = ${JSON.stringify(change.messageIds)}`] : []),
    ...(change.repliedWithMessage !== undefined ? [sql`"repliedWithMessage" = ${change.repliedWithMessage}`] : []),
    ...(change.lease !== undefined ? [sql`"runner" = ${change.lease?.runner ?? null}`, sql`"leaseUntil" = ${change.lease ? toDate(change.lease.until) : null}`] : []),
  ]
  const guarded = sql`UPDATE "A2ATask" SET ${join(assignments)} WHERE "id" = ${change.id} AND "version" = ${change.expectedVersion}`
  const returning = withTask ? sql`${WRITTEN_COLUMNS}, "task", ${pushed(change.id)}` : sql`${WRITTEN_COLUMNS}, ${pushed(change.id)}`
  const update = shaped(`update ${updateShape(change, stamped)}${withTask ? ' with task' : ''}`, sql`${guarded} RETURNING ${returning}`)
  withoutReturning.set(update, { change, guarded })
  return update
}

/** The update's parts, by the statement {@link updateTask} made, for {@link returningParts}. */
const withoutReturning = new WeakMap<Sql, { change: TaskUpdate; guarded: Sql }>()

/**
 * For a database without UPDATE … RETURNING (Dialect.updateReturning false, MySQL): the update alone, and the read of the row it
 * wrote (by id and the version it made, with `columns` more), both to run in one transaction; undefined for any
 * statement but {@link updateTask}'s.
 */
export function returningParts(statement: Sql, columns: Sql = sql``): { update: Sql; read: Sql } | undefined {
  const parts = withoutReturning.get(statement)
  if (!parts) return undefined
  const { change, guarded } = parts
  const version = change.expectedVersion + change.versions
  return { update: guarded, read: sql`SELECT ${WRITTEN_COLUMNS}, ${pushed(change.id)}${columns} FROM "A2ATask" WHERE "id" = ${change.id} AND "version" = ${version}` }
}

/**
 * The assignments {@link updateTask} makes, which its text depends on (see shaped); `stamped` is
 * the task's status time, NaN when it has none.
 */
export const updateShape = (change: TaskUpdate, stamped = taskTime(change.task, Number.NaN)): string =>
  `${change.messageIds ? 'm' : '-'}${change.repliedWithMessage !== undefined ? 'r' : '-'}${change.lease !== undefined ? 'l' : '-'}${Number.isNaN(stamped) ? 'u' : 's'}`

/** The message ids and owner of the task at exactly `version`: what a re-index starts from. */
export const selectIndexed = (id: string, version: number): Sql => sql`SELECT "owner", "messageIds" FROM "A2ATask" WHERE "id" = ${id} AND "version" = ${version}`

/** A2ATaskMessage rows for `messageIds`, one per distinct id (the key refuses a repeat), in chunks. */
export const insertMessageIndex = (owner: string, taskId: string, messageIds: readonly string[]): Sql[] =>
  chunks([...new Set(messageIds)]).map(
    (ids) => sql`INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId") VALUES ${join(ids.map((id) => sql`(${owner}, ${id}, ${taskId})`))}`,
  )

export const deleteMessageIndex = (taskId: string, messageIds: readonly string[]): Sql[] =>
  chunks(messageIds).map((ids) => sql`DELETE FROM "A2ATaskMessage" WHERE "taskId" = ${taskId} AND "messageId" IN (${join(ids)})`)

/** The owner's tasks that accepted `messageId`, oldest first, through the (owner, messageId) key. */
export const selectByMessageId = (owner: string, messageId: string): Sql =>
  sql`SELECT t.* FROM "A2ATaskMessage" m JOIN "A2ATask" t ON t."id" = m."taskId"
    WHERE m."owner" = ${owner} AND m."messageId" = ${messageId} AND t."owner" = ${owner}
    ORDER BY t."createdAt" ASC, t."id" ASC`

/** Tasks with their message index rows and push configs, a chunk of ids per statement. */
export const deleteTasks = (ids: readonly string[]): Sql[] =>
  chunks(ids).flatMap((part) => [
    sql`DELETE FROM "A2ATask" WHERE "id" IN (${join(part)})`,
    sql`DELETE FROM "A2ATaskMessage" WHERE "taskId" IN (${join(part)})`,
    sql`DELETE FROM "A2APushConfig" WHERE "taskId" IN (${join(part)})`,
  ])

/** Up to a chunk of the tier's settled tasks past its newest `keep`, newest first. */
export const selectSettledPast = (tier: Viewer, keep: number): Sql =>
  sql`SELECT "id" FROM "A2ATask" ${whereAll([
    sql`"owner" = ${tier.owner}`,
    matches(sql`"tenant"`, tier.tenant),
    matches(sql`"scope"`, tier.scope),
    sql`"statusState" IN (${join(SETTLED)})`,
  ])} ${NEWEST_FIRST} LIMIT ${CHUNK} OFFSET ${Math.max(keep, 0)}`

/** The filters of a ListTasks query, without its cursor: what `total` counts. */
export function listFilters(query: ListQuery): Sql[] {
  const filters = [sql`"owner" = ${query.owner}`]
  if (query.tenant !== undefined) filters.push(matches(sql`"tenant"`, query.tenant))
  if (query.scope !== undefined) filters.push(matches(sql`"scope"`, query.scope))
  if (query.contextId !== undefined) filters.push(sql`"contextId" = ${query.contextId}`)
  // An empty state list matches nothing, and `IN ()` is not SQL.
  if (query.states) filters.push(query.states.length > 0 ? sql`"statusState" IN (${join(query.states)})` : sql`1 = 0`)
  if (query.statusAfter !== undefined && !Number.isNaN(query.statusAfter)) filters.push(sql`"statusTime" >= ${toDate(query.statusAfter)}`)
  return filters
}

/** One page in keyset order, plus one row that tells whether another page follows. */
export function selectPage(filters: Sql[], pageSize: number, after: Keyset | undefined): Sql {
  const time = after && new Date(after.time)
  const page = after ? [...filters, sql`("statusTime" < ${time} OR ("statusTime" = ${time} AND "id" < ${after.id}))`] : filters
  return sql`SELECT * FROM "A2ATask" ${whereAll(page)} ${NEWEST_FIRST} LIMIT ${pageSize + 1}`
}

export const countTasks = (filters: Sql[]): Sql => sql`SELECT COUNT(*) AS "total" FROM "A2ATask" ${whereAll(filters)}`

/**
 * Inserts the config or replaces the one with its task and id, in one statement, so two
 * concurrent puts cannot collide on the key. Absent token and authentication are stored as NULL.
 */
export function upsertPushConfig(d: Dialect, record: PushConfigRecord, authenticationJson: string | null): Sql {
  const values = sql`VALUES (${record.taskId}, ${record.id}, ${record.owner}, ${record.url}, ${record.token ?? null}, ${authenticationJson}, ${toDate(record.createdAt)})`
  return d.upsert('A2APushConfig', PUSH_CONFIG_COLUMNS, values, ['taskId', 'id'], PUSH_CONFIG_COLUMNS.slice(2))
}

export const selectPushConfig = (taskId: string, id: string): Sql => sql`SELECT * FROM "A2APushConfig" WHERE "taskId" = ${taskId} AND "id" = ${id}`

export const selectPushConfigs = (taskId: string): Sql => sql`SELECT * FROM "A2APushConfig" WHERE "taskId" = ${taskId} ORDER BY "createdAt" ASC, "id" ASC`

export const deletePushConfig = (taskId: string, id: string): Sql => sql`DELETE FROM "A2APushConfig" WHERE "taskId" = ${taskId} AND "id" = ${id}`

export const deletePushConfigsOf = (taskIds: readonly string[]): Sql[] => chunks(taskIds).map((ids) => sql`DELETE FROM "A2APushConfig" WHERE "taskId" IN (${join(ids)})`)

/** Moves the leases `runner` holds on these tasks to `until`, a chunk of ids per statement; the version stays. */
export const renewLeases = (runner: string, taskIds: readonly string[], until: number): Sql[] =>
  chunks(taskIds).map((ids) => sql`UPDATE "A2ATask" SET "leaseUntil" = ${toDate(until)} WHERE "runner" = ${runner} AND "id" IN (${join(ids)})`)

/**
 * Submitted or working tasks whose lease expired before `now` or which have none, oldest lease
 * first (NULLs, the leaseless, sort first on both databases), through the (statusState, leaseUntil) index.
 */
export const selectExpiredRuns = (now: number, limit: number): Sql =>
  sql`SELECT * FROM "A2ATask" WHERE "statusState" IN (${join(RUNNING)}) AND ("leaseUntil" IS NULL OR "leaseUntil" < ${toDate(now)})
    ORDER BY "leaseUntil" ASC LIMIT ${limit}`
