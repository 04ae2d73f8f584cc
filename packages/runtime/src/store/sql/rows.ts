/**
 * Rows → records: DateTime → epoch milliseconds, null → absent; and epoch milliseconds → the
 * Dates the statements bind.
 * @module
 */
import type { Task } from '../../wire/types.js'
import type { PushConfigRecord, TaskRecord } from '../store.js'

/* The rows of prisma/a2a.prisma's tables, as the drivers and Prisma return them. */

/** An A2ATask row as a driver or Prisma returns it. */
export interface TaskRow {
  id: string
  contextId: string
  owner: string
  tenant: string | null
  scope: string | null
  skill: string
  version: number
  task: unknown
  messageIds: unknown
  repliedWithMessage: boolean | null
  createdAt: Date
  updatedAt: Date
  statusState: string
  statusTime: Date
  /** The replica whose run holds the task; null when no run does. */
  runner: string | null
  /** Until when the run's lease holds (see run/leases.ts). */
  leaseUntil: Date | null
}

export interface TaskMessageRow {
  owner: string
  messageId: string
  taskId: string
}

export interface PushConfigRow {
  taskId: string
  id: string
  owner: string
  url: string
  token: string | null
  authentication: unknown
  createdAt: Date
}

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
