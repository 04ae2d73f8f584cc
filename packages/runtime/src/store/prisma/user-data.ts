/**
 * One user's task-store data, for access and erasure requests: everything the A2A tables hold
 * under an owner id, exported as records or deleted in one transaction.
 * @module
 */
import type { PushConfigRecord, TaskRecord } from '../store.js'
import type { PrismaTaskClient } from './client.js'
import { toPushConfig, toRecord } from './rows.js'

export interface UserExport {
  /** The user's tasks, oldest first, full history included. */
  tasks: TaskRecord[]
  /** The push-notification webhooks registered on them, tokens and credentials included. */
  pushConfigs: PushConfigRecord[]
}

export interface UserErasure {
  tasks: number
  pushConfigs: number
  /** Message-id index entries (not user-visible data, but keyed by the owner). */
  messageIds: number
}

/** All of `owner`'s tasks and push configs, in every tenant and scope tier. */
export async function exportUser(db: PrismaTaskClient, owner: string): Promise<UserExport> {
  const [tasks, pushConfigs] = await Promise.all([
    db.a2ATask.findMany({ where: { owner }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.a2APushConfig.findMany({ where: { owner }, orderBy: [{ taskId: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }] }),
  ])
  return { tasks: tasks.map(toRecord), pushConfigs: pushConfigs.map(toPushConfig) }
}

/**
 * Deletes all of `owner`'s tasks, their push configs and message index, in one transaction, and
 * counts what went. Runs still working on a task may fail their next write; erase when idle, or
 * accept that. The user's API keys are the app's to revoke (`revokeApiKey`).
 */
export async function eraseUser(db: PrismaTaskClient, owner: string): Promise<UserErasure> {
  return db.$transaction(async (tx) => {
    // A push config and a message index entry carry their task's owner (the store writes it from
    // the task), so all three tables delete by owner, with no id lists to outgrow SQL limits.
    const pushConfigs = await tx.a2APushConfig.deleteMany({ where: { owner } })
    const messageIds = await tx.a2ATaskMessage.deleteMany({ where: { owner } })
    const tasks = await tx.a2ATask.deleteMany({ where: { owner } })
    return { tasks: tasks.count, pushConfigs: pushConfigs.count, messageIds: messageIds.count }
  })
}
