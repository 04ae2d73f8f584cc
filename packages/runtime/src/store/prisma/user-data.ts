/**
 * One user's data in the A2A tables, for access and erasure requests: everything stored under an
 * owner id (tasks, push configs, the message-id index, API keys), exported as records or deleted
 * in one transaction.
 * @module
 */
import { type ApiKeyInfo, type PrismaApiKeyClient, listApiKeys } from '../../auth/api-keys.js'
import type { PushConfigRecord, TaskRecord } from '../store.js'
import type { PrismaTaskClient } from '../sql/client.js'
import { toPushConfig, toRecord } from '../sql/rows.js'
import { execute, sql } from '../sql/sql.js'

/** The app's client as export and erasure use it: the task-store and API-key models. */
export type PrismaUserDataClient = PrismaTaskClient & PrismaApiKeyClient

export interface UserExport {
  /** The user's tasks, oldest first, full history included. */
  tasks: TaskRecord[]
  /** The push-notification webhooks registered on them, tokens and credentials included. */
  pushConfigs: PushConfigRecord[]
  /** The user's API keys as listings show them: never a key or its hash. */
  apiKeys: ApiKeyInfo[]
}

export interface UserErasure {
  tasks: number
  pushConfigs: number
  /** Message-id index entries (not user-visible data, but keyed by the owner). */
  messageIds: number
  apiKeys: number
  /** Artifact content stored apart from the tasks (A2AArtifactFile). */
  artifactFiles: number
}

/** All of `owner`'s tasks, push configs and API keys, in every tenant and scope tier. */
export async function exportUser(db: PrismaUserDataClient, owner: string): Promise<UserExport> {
  const [tasks, pushConfigs, apiKeys] = await Promise.all([
    db.a2ATask.findMany({ where: { owner }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.a2APushConfig.findMany({ where: { owner }, orderBy: [{ taskId: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }] }),
    listApiKeys(db, { owner }),
  ])
  return { tasks: tasks.map(toRecord), pushConfigs: pushConfigs.map(toPushConfig), apiKeys }
}

/**
 * Deletes all of `owner`'s tasks, their push configs, message index and kept events, the user's API keys
 * and inbox sign-ins,
 * in one transaction, and counts what went. Keys go too: an erased user's key must not keep
 * creating data under the erased id. Runs still working on a task may fail their next write;
 * erase when idle, or accept that.
 */
export async function eraseUser(db: PrismaUserDataClient, owner: string): Promise<UserErasure> {
  // A push config and a message index entry carry their task's owner (the store writes it from
  // the task), so every table deletes by owner, with no id lists to outgrow SQL limits.
  const counts = (await db.$transaction([
    db.a2APushConfig.deleteMany({ where: { owner } }),
    db.a2ATaskMessage.deleteMany({ where: { owner } }),
    db.a2ATask.deleteMany({ where: { owner } }),
    db.a2AApiKey.deleteMany({ where: { owner } }),
    execute(db, sql`DELETE FROM "A2AArtifactFile" WHERE "owner" = ${owner}`),
    execute(db, sql`DELETE FROM "A2ATaskEvent" WHERE "owner" = ${owner}`),
    // The owner's entries in the limits' counts (the per-tenant ones name no owner).
    execute(db, sql`DELETE FROM "A2ALimitEntry" WHERE "key" IN (${`turns owner ${owner}`}, ${`occupied owner ${owner}`})`),
    // The user's inbox links and sessions: a signed-in page stops working at once.
    execute(db, sql`DELETE FROM "A2AInboxToken" WHERE "owner" = ${owner}`),
  ])) as [...{ count: number }[], number, number]
  const [pushConfigs, messageIds, tasks, apiKeys] = counts.slice(0, 4).map((deleted) => (deleted as { count: number }).count) as [number, number, number, number]
  return { tasks, pushConfigs, messageIds, apiKeys, artifactFiles: counts[4] as number }
}
