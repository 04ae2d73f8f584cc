import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeRecord, nextTask, T0 } from '../../conformance-fixtures.js'
import type { TaskNote } from '../../store.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { PostgresStore } from './postgres-store.js'

// Two PostgresStores on one database, as two replicas hold them: one writes, the other listens.

let database: TestDatabase
let writer: PostgresStore
let listener: PostgresStore
const notes: TaskNote[] = []
let stopListening: () => void
beforeAll(async () => {
  database = await openDatabase('postgres')
  writer = new PostgresStore(database.url, { max: 2, onConnectionError: () => {} })
  listener = new PostgresStore(database.url, { max: 2, onConnectionError: () => {} })
  stopListening = listener.notifications.listen((note) => notes.push(note))
  // Listening once it says resync: nothing written before it was heard.
  while (!notes.some((note) => 'resync' in note)) await new Promise((resolve) => setTimeout(resolve, 10))
})
afterAll(async () => {
  stopListening?.()
  await writer?.close()
  await listener?.close()
  await database?.close()
})

const heard = (taskId: string) => notes.filter((note): note is Extract<TaskNote, { taskId: string }> => 'taskId' in note && note.taskId === taskId)

it('hears each committed write as task id and version, and keeps its event for the other replica to read', async () => {
  const record = makeRecord({ id: 'heard', state: 'TASK_STATE_WORKING', messageIds: ['h1'] })
  await writer.create(record)
  const event = { statusUpdate: { taskId: 'heard', contextId: record.contextId, status: { state: 'TASK_STATE_COMPLETED' as const } } }
  await writer.update('heard', 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000), event })
  await expect.poll(() => heard('heard')).toEqual([{ taskId: 'heard', version: 2 }])
  expect(await listener.eventsSince('heard', 1)).toEqual([{ version: 2, response: event }])
  expect(await listener.eventsSince('heard', 2)).toEqual([])
  // A write the version refuses commits nothing, and nothing is heard of it.
  expect(await writer.update('heard', 1, { task: record.task, event })).toBeUndefined()
  await writer.update('heard', 2, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 2000), messageIds: ['h1', 'h2'] })
  await expect.poll(() => heard('heard').map((note) => note.version)).toEqual([2, 3])
})

it('reconnects after its connection is terminated, says resync, and hears writes again', async () => {
  notes.length = 0
  const admin = new pg.Client({ connectionString: database.url })
  await admin.connect()
  const { rows } = await admin.query(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'a2a task notifications'`,
  )
  await admin.end()
  expect(rows[0].n).toBe(1)
  await expect.poll(() => notes.filter((note) => 'resync' in note).length).toBe(2)
  expect(listener.notifications.live).toBe(true)
  const record = makeRecord({ id: 'after', state: 'TASK_STATE_WORKING', messageIds: ['a1'] })
  await writer.create(record)
  await writer.update('after', 1, { task: nextTask(record, 'TASK_STATE_FAILED', T0 + 1000) })
  await expect.poll(() => heard('after')).toEqual([{ taskId: 'after', version: 2 }])
})

it('a trimmed task takes its kept events with it', async () => {
  const tier = { owner: 'trimmed-owner', tenant: null, scope: null }
  for (const [i, id] of ['old', 'new'].entries()) {
    const record = makeRecord({ id: `trim-${id}`, owner: tier.owner, state: 'TASK_STATE_WORKING', messageIds: [`t-${id}`] })
    await writer.create(record)
    const event = { statusUpdate: { taskId: record.id, contextId: record.contextId, status: { state: 'TASK_STATE_COMPLETED' as const } } }
    await writer.update(record.id, 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000 * (i + 1)), event })
  }
  expect(await listener.eventsSince('trim-old', 1)).toHaveLength(1)
  expect(await writer.trimSettled(tier, 1)).toEqual(['trim-old'])
  expect(await listener.eventsSince('trim-old', 0)).toEqual([])
  expect(await listener.eventsSince('trim-new', 1)).toHaveLength(1)
})
