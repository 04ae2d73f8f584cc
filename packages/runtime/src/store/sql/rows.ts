/**
 * Rows → records: DateTime → epoch milliseconds, null → absent; and epoch milliseconds → the
 * Dates the statements bind.
 * @module
 */
import type { Task } from '../../wire/types.js'
import type { PushConfigRecord, TaskRecord } from '../store.js'
import type { PushConfigRow, TaskRow } from './client.js'

const MAX_DATE = 8.64e15

/** A Date for any epoch-ms number: out-of-range times clamp to the ends of Date's range. */
export const toDate = (time: number): Date => new Date(Math.max(-MAX_DATE, Math.min(MAX_DATE, time)))

export function toRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    contextId: row.contextId,
    owner: row.owner,
    tenant: row.tenant,
    scope: row.scope,
    skill: row.skill,
    version: row.version,
    task: row.task as Task,
    messageIds: [...(row.messageIds as string[])],
    // MySQL's BOOLEAN is TINYINT(1): a raw query reads it as 0 or 1.
    ...(row.repliedWithMessage !== null ? { repliedWithMessage: Boolean(row.repliedWithMessage) } : {}),
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    ...(row.runner !== null && row.leaseUntil !== null ? { lease: { runner: row.runner, until: row.leaseUntil.getTime() } } : {}),
  }
}

export function toPushConfig(row: PushConfigRow): PushConfigRecord {
  return {
    id: row.id,
    taskId: row.taskId,
    owner: row.owner,
    url: row.url,
    ...(row.token !== null ? { token: row.token } : {}),
    ...(row.authentication !== null ? { authentication: row.authentication as NonNullable<PushConfigRecord['authentication']> } : {}),
    createdAt: row.createdAt.getTime(),
  }
}
