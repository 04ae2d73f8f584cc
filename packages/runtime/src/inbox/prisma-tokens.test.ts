import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Provider, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { prismaInboxTokens } from './prisma-tokens.js'
import { mintInboxLink, tokenHash, type InboxTokens } from './tokens.js'

describe.each<Provider>(['sqlite', 'postgres'])('inbox tokens in the app database (%s)', (provider) => {
  let database: TestDatabase
  let tokens: InboxTokens
  beforeAll(async () => {
    database = await openDatabase(provider)
    tokens = prismaInboxTokens(database.db)
  })
  afterAll(() => database?.close())

  it('stores only the hash; a link works once, and of two uses at once exactly one', async () => {
    const now = new Date()
    const { token, expiresAt } = await mintInboxLink(tokens, { owner: 'alice', tenant: 'acme', now })
    expect(expiresAt.getTime() - now.getTime()).toBe(15 * 60_000)
    const rows = await database.db.a2AInboxToken.findMany({})
    expect(rows).toHaveLength(1)
    expect(rows[0]!.hash).toBe(tokenHash(token))
    expect(JSON.stringify(rows)).not.toContain(token)
    const uses = await Promise.all([tokens.useLink(tokenHash(token), now), tokens.useLink(tokenHash(token), now)])
    expect(uses.filter(Boolean)).toHaveLength(1)
    expect(uses.find(Boolean)).toMatchObject({ owner: 'alice', tenant: 'acme', kind: 'link' })
    expect(await tokens.useLink(tokenHash(token), now)).toBeUndefined()
  })

  it('refuses an expired link, and a session past its expiry; a removed session is gone', async () => {
    const now = new Date()
    const { token } = await mintInboxLink(tokens, { owner: 'bob', ttlMs: 1000, now })
    expect(await tokens.useLink(tokenHash(token), new Date(now.getTime() + 1000))).toBeUndefined()
    await tokens.put({ hash: 'session-hash', kind: 'session', owner: 'bob', tenant: null, createdAt: now, expiresAt: new Date(now.getTime() + 60_000), usedAt: null })
    expect(await tokens.useLink('session-hash', now)).toBeUndefined() // a session is no link
    expect(await tokens.findSession('session-hash', now)).toMatchObject({ owner: 'bob', tenant: null })
    expect(await tokens.findSession('session-hash', new Date(now.getTime() + 60_000))).toBeUndefined()
    await tokens.remove('session-hash')
    expect(await tokens.findSession('session-hash', now)).toBeUndefined()
  })
})
