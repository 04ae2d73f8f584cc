/**
 * One user's data in the A2A tables, for access and erasure requests: everything stored under an
 * owner id (the task store's rows, API keys, limit counts, inbox sign-ins), exported as records
 * or deleted in one transaction.
 * @module
 */
import { type ApiKeyInfo, type PrismaApiKeyClient, listApiKeys } from './api-keys.js'
import { exportTaskData, taskDataErasure, type TaskDataExport } from '../store/prisma/task-data.js'
import type { PrismaTaskClient } from '../store/prisma/client.js'
import { execute } from '../store/prisma/raw.js'
import { sql } from '../store/sql/sql.js'

/** The app's client as export and erasure use it: the task-store and API-key models. */
export type PrismaUserDataClient = PrismaTaskClient & PrismaApiKeyClient

export interface UserExport extends TaskDataExport {
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
  const [taskData, apiKeys] = await Promise.all([exportTaskData(db, owner), listApiKeys(db, { owner })])
  return { ...taskData, apiKeys }
}

/**
 * Deletes all of `owner`'s tasks, their push configs, message index and kept events, the user's API keys
 * and inbox sign-ins,
 * in one transaction, and counts what went. Keys go too: an erased user's key must not keep
 * creating data under the erased id. Runs still working on a task may fail their next write;
 * erase when idle, or accept that.
 */
export async function eraseUser(db: PrismaUserDataClient, owner: string): Promise<UserErasure> {
  const taskData = taskDataErasure(db, owner)
  const results = await db.$transaction([
    ...taskData.statements,
    db.a2AApiKey.deleteMany({ where: { owner } }),
    // The owner's entries in the limits' counts (the per-tenant ones name no owner).
    execute(db, sql`DELETE FROM "A2ALimitEntry" WHERE "key" IN (${`turns owner ${owner}`}, ${`occupied owner ${owner}`})`),
    // The user's inbox links and sessions: a signed-in page stops working at once.
    execute(db, sql`DELETE FROM "A2AInboxToken" WHERE "owner" = ${owner}`),
  ])
  const apiKeys = (results[taskData.statements.length] as { count: number }).count
  return { ...taskData.counted(results), apiKeys }
}
