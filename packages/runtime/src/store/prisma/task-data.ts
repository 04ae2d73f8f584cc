/**
 * One owner's rows in the task store's tables (tasks, push configs, the message-id index, kept
 * events, artifact files), read as records or deleted, for access and erasure requests. The app's
 * other tables (API keys, sign-ins) are auth's: auth/user-data.ts exports and erases a whole user.
 * @module
 */
import type { PushConfigRecord, TaskRecord } from '../store.js'
import type { PrismaTaskClient } from './client.js'
import { toPushConfig, toRecord } from '../sql/rows.js'
import { execute } from './raw.js'
import { sql } from '../sql/sql.js'

export interface TaskDataExport {
  /** The owner's tasks, oldest first, full history included. */
  tasks: TaskRecord[]
  /** The push-notification webhooks registered on them, tokens and credentials included. */
  pushConfigs: PushConfigRecord[]
}

/** All of `owner`'s tasks and push configs, in every tenant and scope tier. */
export async function exportTaskData(db: PrismaTaskClient, owner: string): Promise<TaskDataExport> {
  const [tasks, pushConfigs] = await Promise.all([
    db.a2ATask.findMany({ where: { owner }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.a2APushConfig.findMany({ where: { owner }, orderBy: [{ taskId: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }] }),
  ])
  return { tasks: tasks.map(toRecord), pushConfigs: pushConfigs.map(toPushConfig) }
}

/** What {@link taskDataErasure}'s statements deleted, in their order. */
export type TaskDataErased = { pushConfigs: number; messageIds: number; tasks: number; artifactFiles: number }

/**
 * The statements that delete all of `owner`'s rows in the task store's tables, for the caller to
 * run in one `$transaction([...])` with its own, and how to count their results. A push config,
 * a message index entry, an event and a file carry their task's owner (the store writes it from
 * the task), so every table deletes by owner, with no id lists to outgrow SQL limits.
 */
export function taskDataErasure(db: PrismaTaskClient, owner: string): { statements: PromiseLike<unknown>[]; counted: (results: readonly unknown[]) => TaskDataErased } {
  const statements = [
    db.a2APushConfig.deleteMany({ where: { owner } }),
    db.a2ATaskMessage.deleteMany({ where: { owner } }),
    db.a2ATask.deleteMany({ where: { owner } }),
    execute(db, sql`DELETE FROM "A2AArtifactFile" WHERE "owner" = ${owner}`),
    execute(db, sql`DELETE FROM "A2ATaskEvent" WHERE "owner" = ${owner}`),
  ]
  const counted = (results: readonly unknown[]): TaskDataErased => {
    const [pushConfigs, messageIds, tasks] = results.slice(0, 3).map((deleted) => (deleted as { count: number }).count) as [number, number, number]
    return { pushConfigs, messageIds, tasks, artifactFiles: results[3] as number }
  }
  return { statements, counted }
}
