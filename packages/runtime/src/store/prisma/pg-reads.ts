/**
 * PostgresStore's hot reads batched per turn of the event loop (see tick-batch.ts): a task by id
 * (GetTask, and the read a run starts with) and the owner's tasks holding a message id (every
 * SendMessage asks first). One statement answers every lookup of the batch, its ids bound as
 * one array parameter, so the statement text, prepared once per connection, is the same whatever
 * the batch's size.
 * @module
 */
import type { Executor } from './executor.js'
import type { TaskRow } from './client.js'
import { sql, type Sql } from './sql.js'
import { TickBatch } from './tick-batch.js'

const REPEATABLE = { idempotent: true }

const selectTasks = (ids: readonly string[]): Sql => sql`SELECT * FROM "A2ATask" WHERE "id" = ANY(${ids}::text[])`

/**
 * The (owner, messageId) pairs' tasks, oldest first, each row naming the index entry it was found
 * by. Joined on the task id alone, so the plan (prepared while the table is nearly empty) reaches
 * each task by its primary key, never by scanning the owner's tasks; the owners are compared here.
 */
const selectByMessageIds = (keys: readonly MessageKey[]): Sql =>
  sql`SELECT m."owner" AS "foundFor", m."messageId" AS "foundBy", t.* FROM "A2ATaskMessage" m JOIN "A2ATask" t ON t."id" = m."taskId"
    WHERE (m."owner", m."messageId") IN (SELECT * FROM unnest(${keys.map((key) => key.owner)}::text[], ${keys.map((key) => key.messageId)}::text[]))
    ORDER BY t."createdAt" ASC, t."id" ASC`

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
