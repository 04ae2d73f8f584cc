import { expect } from 'vitest'
import { T0, makeRecord, nextTask } from '../../conformance-fixtures.js'
import type { PushConfigRecord } from '../../store.js'
import type { SqlStore } from '../../sql/sql-store.js'
import { exportTaskData } from '../task-data.js'
import type { TestDatabase } from './databases.js'

export const hook = (taskId: string, owner: string, id: string, extra: Partial<PushConfigRecord> = {}): PushConfigRecord => ({
  id,
  taskId,
  owner,
  url: `https://hooks.example.com/${id}`,
  createdAt: T0 + id.length,
  ...extra,
})

/**
 * A direct-driver store beside the app's Prisma store on one database: each writes a task (alice's
 * by `direct`, bob's by `prisma`) with its message index and push configs, the other reads back
 * exactly that, and the app's Prisma models export it.
 */
export async function expectEachReadsTheOther(database: TestDatabase, direct: SqlStore, prisma: SqlStore): Promise<void> {
  const pairs: [SqlStore, SqlStore, string][] = [
    [direct, prisma, 'alice'],
    [prisma, direct, 'bob'],
  ]
  for (const [writer, reader, owner] of pairs) {
    const id = `${owner}-task`
    const record = makeRecord({ id, owner, tenant: 'acme', scope: 'read', state: 'TASK_STATE_WORKING', messageIds: ['m1', 'm2', 'm1'], repliedWithMessage: false })
    await writer.create(record)
    expect(await reader.get(id)).toEqual(record)
    expect(await reader.findByMessageId(owner, 'm1')).toEqual([record])
    const updated = await writer.update(id, 1, { task: nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000), messageIds: ['m1', 'm3'], repliedWithMessage: true })
    expect(updated).toMatchObject({ version: 2, repliedWithMessage: true })
    expect(await reader.get(id)).toEqual(updated)
    expect(await reader.findByMessageId(owner, 'm3')).toEqual([updated])
    expect(await reader.findByMessageId(owner, 'm2')).toEqual([])
    expect(await reader.list({ owner, tenant: 'acme', statusAfter: T0 + 1000, pageSize: 5 })).toEqual({ records: [updated], total: 1 })
    const hooks = [hook(id, owner, 'with-auth', { token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } }), hook(id, owner, 'bare')]
    for (const config of hooks) await writer.putPushConfig(config)
    const sorted = [...hooks].sort((a, b) => a.createdAt - b.createdAt)
    expect(await reader.listPushConfigs(id)).toEqual(sorted)
    expect(await reader.getPushConfig(id, 'bare')).toEqual(hooks[1])
    expect(await exportTaskData(database.db, owner)).toEqual({ tasks: [updated], pushConfigs: sorted })
  }
}
