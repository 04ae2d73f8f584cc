import type { IncomingMessage } from 'node:http'
import { PrismaPg } from '@prisma/adapter-pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../../../test/free-port.js'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { openDatabase, type Provider, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PrismaClient as PgClient } from '../store/prisma/__fixture__/postgres/generated/client/client.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { apiKeyResolver, createApiKey, listApiKeys, revokeApiKey } from './api-keys.js'

const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } }) as IncomingMessage

for (const provider of ['sqlite', 'postgres', 'mysql'] as const satisfies Provider[]) {
  describe(`API keys on ${provider}`, () => {
    let database: TestDatabase
    beforeAll(async () => {
      database = await openDatabase(provider)
    })
    afterAll(async () => {
      await database?.close()
    })

    it('stores only a hash and a prefix, lists without hashes, and revokes', async () => {
      const { db } = database
      const full = await createApiKey(db, { owner: 'alice' })
      const narrow = await createApiKey(db, { owner: 'alice', tenant: 'acme', scopes: ['write', 'read', 'read'] })
      await createApiKey(db, { owner: 'bob' })
      expect(full.key).toMatch(/^a2a_[A-Za-z0-9_-]{43}$/)
      const row = await db.a2AApiKey.findUnique({ where: { id: full.id } })
      expect(row!.hash).toMatch(/^[0-9a-f]{64}$/)
      expect(JSON.stringify(await db.a2AApiKey.findMany({}))).not.toContain(full.key)
      expect(row!.prefix).toBe(full.key.slice(0, 12))

      const alices = await listApiKeys(db, { owner: 'alice' })
      expect(alices.map((key) => key.id)).toEqual([full.id, narrow.id])
      expect(alices[1]).toMatchObject({ owner: 'alice', tenant: 'acme', scopes: ['read', 'write'], lastUsedAt: null, revokedAt: null })
      expect(alices[0]).toMatchObject({ tenant: null, scopes: null })
      expect(alices[0]).not.toHaveProperty('hash')
      expect(await listApiKeys(db)).toHaveLength(3)

      const revoked = await revokeApiKey(db, narrow.id)
      expect(revoked!.revokedAt).toBeInstanceOf(Date)
      // A second revocation keeps the first time.
      expect((await revokeApiKey(db, narrow.id))!.revokedAt).toEqual(revoked!.revokedAt)
      expect(await revokeApiKey(db, 'no-such-key')).toBeUndefined()
    })

    it('refuses an owner, tenant or scope it could not store faithfully', async () => {
      await expect(createApiKey(database.db, { owner: ' ' })).rejects.toThrow(/owner/)
      await expect(createApiKey(database.db, { owner: 'alice', tenant: '' })).rejects.toThrow(/tenant/)
      await expect(createApiKey(database.db, { owner: 'alice', scopes: ['a b'] })).rejects.toThrow(/whitespace/)
    })

    it('resolves a key to its principal, and an unknown, revoked or malformed one to null', async () => {
      const { db } = database
      const resolve = apiKeyResolver(db)
      const full = await createApiKey(db, { owner: 'carol' })
      const narrow = await createApiKey(db, { owner: 'carol', tenant: 't1', scopes: ['b', 'a'] })
      const none = await createApiKey(db, { owner: 'carol', scopes: [] })
      expect(await resolve(bearer(full.key))).toEqual({ owner: 'carol', credential: full.id })
      expect(await resolve(bearer(narrow.key))).toEqual({ owner: 'carol', credential: narrow.id, tenant: 't1', scopes: ['a', 'b'] })
      expect(await resolve(bearer(none.key))).toEqual({ owner: 'carol', credential: none.id, scopes: [] })
      expect(await resolve(bearer(`${full.key}x`))).toBeNull()
      expect(await resolve(bearer('key-alice'))).toBeNull()
      expect(await resolve({ headers: {} } as IncomingMessage)).toBeNull()
      await revokeApiKey(db, full.id)
      expect(await resolve(bearer(full.key))).toBeNull()
    })

    it('writes lastUsedAt at most once per interval', async () => {
      const { db } = database
      let clock = Date.UTC(2030, 0, 1)
      const resolve = apiKeyResolver(db, { now: () => clock })
      const { id, key } = await createApiKey(db, { owner: 'dave' })
      const lastUsed = async () => (await db.a2AApiKey.findUnique({ where: { id } }))!.lastUsedAt?.getTime()
      await resolve(bearer(key))
      expect(await lastUsed()).toBe(clock)
      const first = clock
      clock += 59_000
      await resolve(bearer(key))
      expect(await lastUsed()).toBe(first)
      clock += 1_000
      await resolve(bearer(key))
      expect(await lastUsed()).toBe(clock)
    })

    describe('over HTTP', () => {
      let server: TestServer
      const keys: Record<string, string> = {}
      beforeAll(async () => {
        const echo = defineSkill({ id: 'echo', description: 'completes at once', handler: async () => {} })
        server = await startTestServer({ skills: [echo], store: new MemoryStore(), resolvePrincipal: apiKeyResolver(database.db), token: '' })
        keys.full = (await createApiKey(database.db, { owner: 'erin' })).key
        keys.read = (await createApiKey(database.db, { owner: 'erin', scopes: ['read'] })).key
        keys.write = (await createApiKey(database.db, { owner: 'erin', scopes: ['write'] })).key
        const revoked = await createApiKey(database.db, { owner: 'erin' })
        await revokeApiKey(database.db, revoked.id)
        keys.revoked = revoked.key
      })
      afterAll(() => server?.close())

      it('answers 401 to an unknown or revoked key, and to none', async () => {
        for (const token of ['a2a_unknown', keys.revoked!, 'nope']) {
          expect((await server.rpc('ListTasks', {}, { token })).status, token).toBe(401)
        }
        expect((await server.rpc('ListTasks', {})).status).toBe(401)
        expect((await server.rpc('ListTasks', {}, { token: keys.full! })).status).toBe(200)
      })

      it("keeps a scoped key's tasks in its scope set's tier", async () => {
        const made = (await server.result('SendMessage', { message: userMessage('hi') }, { token: keys.read! })).task
        expect((await server.result('GetTask', { id: made.id }, { token: keys.read! })).id).toBe(made.id)
        expect((await server.rpc('GetTask', { id: made.id }, { token: keys.write! })).body.error.code).toBe(-32001)
        expect((await server.result('ListTasks', {}, { token: keys.write! })).tasks).toEqual([])
        // The full key is a session: it sees its owner's tasks of every tier.
        expect((await server.result('ListTasks', {}, { token: keys.full! })).tasks.map((t: any) => t.id)).toEqual([made.id])
      })
    })
  })
}

describe('API keys while the database cannot be reached', () => {
  let database: TestDatabase
  let server: TestServer
  let cut: PgClient
  beforeAll(async () => {
    database = await openDatabase('postgres')
    // The same database through a port nothing listens on (loopback): every connection is refused.
    const port = await freePort()
    const unreachable = new URL(database.url)
    unreachable.port = String(port)
    cut = new PgClient({ adapter: new PrismaPg({ connectionString: unreachable.href, connectionTimeoutMillis: 2000 }) })
    const skill = defineSkill({ id: 'echo', description: 'echo', handler: () => {} })
    server = await startTestServer({ skills: [skill], resolvePrincipal: apiKeyResolver(cut), logger: { warn: () => {}, error: () => {} } })
  })
  afterAll(async () => {
    await server?.close()
    await cut?.$disconnect()
    await database?.close()
  })

  it('answers HTTP 503 with Retry-After and JSON-RPC -31503 (UNAVAILABLE, retryAfter in its data), instead of 500', async () => {
    const { key } = await createApiKey(database.db, { owner: 'alice' })
    const reply = await server.rpc('SendMessage', { message: userMessage('hi', { skill: 'echo' }) }, { headers: { Authorization: `Bearer ${key}` } })
    expect(reply.status).toBe(503)
    expect(reply.headers.get('retry-after')).toBe('5')
    expect(reply.body.error).toMatchObject({ code: -31503, message: 'The agent cannot reach its database to check your credentials; retry shortly' })
    expect(reply.body.error.data).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNAVAILABLE', domain: '@a2a-agent/runtime', metadata: { retryAfter: '5' } },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '5s' },
    ])
  })
})
