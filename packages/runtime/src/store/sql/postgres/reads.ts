/**
 * PostgresStore's hot reads batched per turn of the event loop (see tick-batch.ts): a task by id
 * (GetTask, and the read a run starts with) and the owner's tasks holding a message id (every
 * SendMessage asks first). One statement answers every lookup of the batch, its ids bound as
 * one array parameter, so the statement text, prepared once per connection, is the same whatever
 * the batch's size.
 * @module
 */
import type { Executor } from '../executor.js'
import type { TaskRow } from '../rows.js'
import { paddedRows } from '../padded-rows.js'
import { shaped, sql, type Sql } from '../sql.js'
import { TickBatch } from '../tick-batch.js'

const REPEATABLE = { idempotent: true }

/**
 * The tasks of these ids, each looked up by itself (the lateral subquery, kept apart by
 * `OFFSET 0`) through the primary key. As `"id" = ANY(array)`, or joined to the ids as a set, a
 * plan made while the table was empty kept scanning the whole table (2.8 ms per read at 20,000
 * tasks).
 */
export const selectTasks = (ids: readonly string[]): Sql => {
  const { size, rows } = paddedRows(ids.length, (i) => sql`(${ids[i] ?? null}::text)`)
  return shaped(`tasks by id ${size}`, sql`SELECT t.* FROM (VALUES ${rows}) AS k("id") CROSS JOIN LATERAL (SELECT * FROM "A2ATask" x WHERE x."id" = k."id" OFFSET 0) t`)
}

/**
 * The (owner, messageId) pairs' tasks, oldest first, each row naming the index entry it was found
 * by. Each pair is looked up by itself in the message index (the lateral subquery, kept apart by
 * `OFFSET 0`, is probed once per pair through the index's key), then its task by primary key: a
 * few index probes per pair whatever the tables hold. Joined as a set instead, the plan (generic,
 * prepared while the table was small) hashed the pairs and scanned every index row: 0.5 ms at 2000
 * rows against 0.05. The task's owner is compared here.
 *
 * The pairs are a padded VALUES list (padded-rows.ts), not an unnest of two arrays: each
 * execution of that was planned anew (~0.1 ms of the database's CPU each).
 */
export const selectByMessageIds = (keys: readonly MessageKey[]): Sql => {
  const { size, rows } = paddedRows(keys.length, (i) => sql`(${keys[i]?.owner ?? null}::text, ${keys[i]?.messageId ?? null}::text)`)
  return shaped(
    `tasks by message ids ${size}`,
    sql`SELECT k."owner" AS "foundFor", k."messageId" AS "foundBy", t.* FROM (VALUES ${rows}) AS k("owner", "messageId")
    CROSS JOIN LATERAL (SELECT m."taskId" FROM "A2ATaskMessage" m WHERE m."owner" = k."owner" AND m."messageId" = k."messageId" OFFSET 0) m
    JOIN "A2ATask" t ON t."id" = m."taskId"
    ORDER BY t."createdAt" ASC, t."id" ASC`,
  )
}

interface MessageKey {
  owner: string
  messageId: string
}

const messageKey = (owner: string, messageId: string): string => `${owner}\u0000${messageId}`

export class PgReads {
  readonly #tasks: TickBatch<string, TaskRow>
  readonly #byMessage: TickBatch<MessageKey, TaskRow[]>

  constructor(db: Executor) {
    this.#tasks = new TickBatch(
      (id) => id,
      async (ids) => new Map((await db.query<TaskRow>(selectTasks(ids), REPEATABLE)).map((row) => [row.id, row])),
    )
    this.#byMessage = new TickBatch(
      (key) => messageKey(key.owner, key.messageId),
      async (keys) => {
        const found = new Map<string, TaskRow[]>()
        for (const row of await db.query<TaskRow & { foundFor: string; foundBy: string }>(selectByMessageIds(keys), REPEATABLE)) {
          if (row.owner !== row.foundFor) continue
          const key = messageKey(row.owner, row.foundBy)
          found.set(key, [...(found.get(key) ?? []), row])
        }
        return found
      },
    )
  }

  /** The task's row, a copy of its own for each caller. */
  task(id: string): Promise<TaskRow | undefined> {
    return this.#tasks.get(id)
  }

  async byMessageId(owner: string, messageId: string): Promise<TaskRow[]> {
    return (await this.#byMessage.get({ owner, messageId })) ?? []
  }
}
