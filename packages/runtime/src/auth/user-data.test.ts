import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiKeyResolver, createApiKey, listApiKeys } from './api-keys.js'
import { makeRecord } from '../store/conformance-fixtures.js'
import type { PushConfigRecord } from '../store/store.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PrismaStore } from '../store/prisma/prisma-store.js'
import { mintInboxLink } from '../inbox/tokens.js'
import { prismaInboxTokens } from '../inbox/prisma-tokens.js'
import { eraseUser, exportUser } from './user-data.js'

const hook = (taskId: string, owner: string, extra: Partial<PushConfigRecord> = {}): PushConfigRecord => ({
  id: `hook-${taskId}`,
  taskId,
  owner,
  url: 'https://hooks.example.com/a2a',
  createdAt: 1_700_000_000_000,
  ...extra,
})

describe.each(['sqlite', 'mysql'] as const)('exportUser and eraseUser on %s', (provider) => {
  let database: TestDatabase
  let store: PrismaStore
  let aliceKey: string
  let bobKey: string
  const resolve = (key: string) => apiKeyResolver(database.db)({ headers: { authorization: `Bearer ${key}` } } as never)
  beforeAll(async () => {
    database = await openDatabase(provider)
    store = new PrismaStore(database.db)
    await store.create(makeRecord({ id: 'a1', owner: 'alice', messageIds: ['m1'] }))
    await store.create(makeRecord({ id: 'a2', owner: 'alice', tenant: 'acme', scope: 'read', messageIds: ['m2'] }))
    await store.create(makeRecord({ id: 'b1', owner: 'bob', messageIds: ['m1'] }))
    await store.putPushConfig(hook('a1', 'alice', { token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } }))
    await store.putPushConfig(hook('b1', 'bob'))
    const file = { id: 'f1', mediaType: 'text/plain', bytes: Buffer.from('a long report'), createdAt: Date.now() }
    await store.artifactFiles.put({ ...file, taskId: 'a1', owner: 'alice' })
    await store.artifactFiles.put({ ...file, taskId: 'b1', owner: 'bob' })
    aliceKey = (await createApiKey(database.db, { owner: 'alice', scopes: ['read'] })).key
    bobKey = (await createApiKey(database.db, { owner: 'bob' })).key
    for (const owner of ['alice', 'bob']) await mintInboxLink(prismaInboxTokens(database.db), { owner })
  })
  afterAll(async () => {
    await database?.close()
  })

  it("exports every tier of one user's tasks, their push configs and the user's API keys, as the store reads them", async () => {
    const exported = await exportUser(database.db, 'alice')
    expect(exported.tasks.map((task) => task.id)).toEqual(['a1', 'a2'])
    expect(exported.tasks).toEqual([await store.get('a1'), await store.get('a2')])
    expect(exported.pushConfigs).toEqual(await store.listPushConfigs('a1'))
    expect(exported.pushConfigs[0]).toMatchObject({ token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } })
    expect(exported.apiKeys).toEqual(await listApiKeys(database.db, { owner: 'alice' }))
    expect(exported.apiKeys).toMatchObject([{ owner: 'alice', scopes: ['read'], revokedAt: null }])
    // Never the key or its hash.
    expect(JSON.stringify(exported)).not.toContain(aliceKey.slice(12))
    expect(Object.keys(exported.apiKeys[0]!)).not.toContain('hash')
    expect(await exportUser(database.db, 'nobody')).toEqual({ tasks: [], pushConfigs: [], apiKeys: [] })
  })

  it("erases one user's tasks, push configs, message index and API keys, and nobody else's", async () => {
    expect(await resolve(aliceKey)).toMatchObject({ owner: 'alice' })
    expect(await eraseUser(database.db, 'alice')).toEqual({ tasks: 2, pushConfigs: 1, messageIds: 2, apiKeys: 1, artifactFiles: 1 })
    expect(await exportUser(database.db, 'alice')).toEqual({ tasks: [], pushConfigs: [], apiKeys: [] })
    // The erased user's key no longer authenticates; bob's still does.
    expect(await resolve(aliceKey)).toBeNull()
    expect(await resolve(bobKey)).toMatchObject({ owner: 'bob' })
    expect(await store.artifactFiles.get('a1', 'f1')).toBeUndefined()
    expect(await store.artifactFiles.get('b1', 'f1')).toMatchObject({ owner: 'bob' })
    expect(await store.findByMessageId('alice', 'm1')).toEqual([])
    expect((await store.findByMessageId('bob', 'm1')).map((task) => task.id)).toEqual(['b1'])
    expect(await store.listPushConfigs('b1')).toHaveLength(1)
    expect(await listApiKeys(database.db, { owner: 'bob' })).toHaveLength(1)
    // Inbox sign-ins go with the user.
    expect((await database.db.a2AInboxToken.findMany({})).map((row) => row.owner)).toEqual(['bob'])
    expect(await eraseUser(database.db, 'alice')).toEqual({ tasks: 0, pushConfigs: 0, messageIds: 0, apiKeys: 0, artifactFiles: 0 })
  })
})
