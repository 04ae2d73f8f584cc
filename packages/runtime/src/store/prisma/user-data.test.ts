import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeRecord } from '../conformance-fixtures.js'
import type { PushConfigRecord } from '../store.js'
import { openDatabase, type TestDatabase } from './__fixture__/databases.js'
import { PrismaStore } from './prisma-store.js'
import { eraseUser, exportUser } from './user-data.js'

const hook = (taskId: string, owner: string, extra: Partial<PushConfigRecord> = {}): PushConfigRecord => ({
  id: `hook-${taskId}`,
  taskId,
  owner,
  url: 'https://hooks.example.com/a2a',
  createdAt: 1_700_000_000_000,
  ...extra,
})

describe('exportUser and eraseUser on sqlite', () => {
  let database: TestDatabase
  let store: PrismaStore
  beforeAll(async () => {
    database = await openDatabase('sqlite')
    store = new PrismaStore(database.db)
    await store.create(makeRecord({ id: 'a1', owner: 'alice', messageIds: ['m1'] }))
    await store.create(makeRecord({ id: 'a2', owner: 'alice', tenant: 'acme', scope: 'read', messageIds: ['m2'] }))
    await store.create(makeRecord({ id: 'b1', owner: 'bob', messageIds: ['m1'] }))
    await store.putPushConfig(hook('a1', 'alice', { token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } }))
    await store.putPushConfig(hook('b1', 'bob'))
  })
  afterAll(async () => {
    await database?.close()
  })

  it('exports every tier of one user\'s tasks and their push configs, as the store reads them', async () => {
    const exported = await exportUser(database.db, 'alice')
    expect(exported.tasks.map((task) => task.id)).toEqual(['a1', 'a2'])
    expect(exported.tasks).toEqual([await store.get('a1'), await store.get('a2')])
    expect(exported.pushConfigs).toEqual(await store.listPushConfigs('a1'))
    expect(exported.pushConfigs[0]).toMatchObject({ token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } })
    // Plain JSON: what `a2a users export` prints.
    expect(JSON.parse(JSON.stringify(exported))).toEqual(exported)
    expect(await exportUser(database.db, 'nobody')).toEqual({ tasks: [], pushConfigs: [] })
  })

  it('erases one user\'s tasks, push configs and message index, and nobody else\'s', async () => {
    expect(await eraseUser(database.db, 'alice')).toEqual({ tasks: 2, pushConfigs: 1, messageIds: 2 })
    expect(await exportUser(database.db, 'alice')).toEqual({ tasks: [], pushConfigs: [] })
    expect(await store.findByMessageId('alice', 'm1')).toEqual([])
    expect((await store.findByMessageId('bob', 'm1')).map((task) => task.id)).toEqual(['b1'])
    expect(await store.listPushConfigs('b1')).toHaveLength(1)
    expect(await eraseUser(database.db, 'alice')).toEqual({ tasks: 0, pushConfigs: 0, messageIds: 0 })
  })
})
