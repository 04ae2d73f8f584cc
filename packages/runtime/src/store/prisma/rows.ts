/**
 * Records ↔ Prisma rows: epoch milliseconds ↔ DateTime, absent ↔ null, and task bodies as JSON
 * values Prisma stores as they are.
 * @module
 */
import { assertJsonEncodable } from '../../wire/json-safe.js'
import type { Task } from '../../wire/types.js'
import type { PushConfigRecord, TaskRecord } from '../store.js'
import type { PushConfigRow, TaskRow } from './client.js'


/** `value` as JSON text, refusing what JSON cannot carry (as MemoryStore does). */
export function jsonText(value: unknown, path: string): string {
  assertJsonEncodable(value, path)
  return JSON.stringify(value)
}

/** The status time in epoch ms: the task's status timestamp, else `fallback` (as MemoryStore). */
export function timeOf(task: Task, fallback: number): number {
  const parsed = Date.parse(task.status.timestamp ?? '')
  return Number.isNaN(parsed) ? fallback : parsed
}

const MAX_DATE = 8.64e15

/** A Date for any epoch-ms number: out-of-range times clamp to the ends of Date's range. */
export const toDate = (time: number): Date => new Date(Math.max(-MAX_DATE, Math.min(MAX_DATE, time)))

/** The A2ATask columns of a record whose task is already a JSON copy. */
export function taskData(record: TaskRecord, task: Task) {
  return {
    id: record.id,
    contextId: record.contextId,
    owner: record.owner,
    tenant: record.tenant,
    scope: record.scope,
    skill: record.skill,
    version: record.version,
    task,
    messageIds: [...record.messageIds],
    repliedWithMessage: record.repliedWithMessage ?? null,
    createdAt: toDate(record.createdAt),
    updatedAt: toDate(record.updatedAt),
    statusState: task.status.state,
    statusTime: toDate(timeOf(task, record.updatedAt)),
  }
}

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
    ...(row.repliedWithMessage !== null ? { repliedWithMessage: row.repliedWithMessage } : {}),
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
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
