/**
 * The multi-row writes PrismaStore runs inside its transactions: the A2ATaskMessage index kept in
 * step with a task's message ids, and deleting tasks with everything that hangs off them.
 * @module
 */
import type { PrismaTaskTransaction } from './client.js'

/** Ids per `in (...)` list, well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500

export const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK))

/** Whether two id lists hold the same ids, whatever the order. */
export const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const set = new Set(a)
  return set.size === new Set(b).size && b.every((id) => set.has(id))
}

/** One A2ATaskMessage row per distinct message id (the key would refuse a repeat). */
export async function indexMessages(tx: PrismaTaskTransaction, owner: string, taskId: string, messageIds: readonly string[]): Promise<void> {
  const data = [...new Set(messageIds)].map((messageId) => ({ owner, messageId, taskId }))
  for (const rows of chunks(data)) await tx.a2ATaskMessage.createMany({ data: rows })
}

/** Brings a task's A2ATaskMessage rows from `before` to `after`: usually one message added. */
export async function reindexMessages(tx: PrismaTaskTransaction, owner: string, taskId: string, before: readonly string[], after: readonly string[]): Promise<void> {
  const [was, is] = [new Set(before), new Set(after)]
  const gone = [...was].filter((id) => !is.has(id))
  for (const ids of chunks(gone)) await tx.a2ATaskMessage.deleteMany({ where: { taskId, messageId: { in: ids } } })
  await indexMessages(tx, owner, taskId, [...is].filter((id) => !was.has(id)))
}

/** Deletes tasks with their message index rows and push configs. */
export async function deleteTasks(tx: PrismaTaskTransaction, ids: readonly string[]): Promise<void> {
  for (const part of chunks(ids)) {
    await tx.a2ATask.deleteMany({ where: { id: { in: part } } })
    await tx.a2ATaskMessage.deleteMany({ where: { taskId: { in: part } } })
    await tx.a2APushConfig.deleteMany({ where: { taskId: { in: part } } })
  }
}
