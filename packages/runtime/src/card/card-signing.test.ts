import { generateKeyPairSync } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { JWK } from 'jose'
import { defineSkill } from '../skills/skill.js'
import { BINDINGS } from '../testing/binding-client.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { canonicalCardPayload, CardSigner, verifyCardSignature } from './card-signing.js'
import { generateSigningKey, parseSigningKeys } from './signing-keys.js'

const echo = defineSkill({ id: 'echo', description: 'Echoes text', handler: () => {} })

let server: TestServer
afterEach(() => server?.close())

const pem = (type: 'ec' | 'ed25519' | 'rsa') => {
  const options = type === 'ec' ? { namedCurve: 'P-384' } : type === 'rsa' ? { modulusLength: 2048 } : {}
  const { privateKey, publicKey } = generateKeyPairSync(type as 'ec', options as { namedCurve: string })
  return { private: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, public: publicKey.export({ type: 'spki', format: 'pem' }) as string }
}

async function readCard(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/.well-known/agent-card.json`, { headers })
  return (await response.json()) as any
}

async function jwksOf(card: any): Promise<JWK[]> {
  const header = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString())
  return ((await (await fetch(header.jku)).json()) as { keys: JWK[] }).keys
}

describe('signing keys', () => {
  it('reads PEM (several blocks), JWK and JWK Set text and picks the algorithm from the key', () => {
    const [ec, ed, rsa] = [pem('ec'), pem('ed25519'), pem('rsa')]
    const keys = parseSigningKeys(`${ec.private}\n${ed.public}`)
    expect(keys.map((key) => [key.alg, Boolean(key.privateKey)])).toEqual([
      ['ES384', true],
      ['EdDSA', false],
    ])
    expect(parseSigningKeys(rsa.private)[0]!.alg).toBe('RS256')
    const jwk = JSON.parse(generateSigningKey())
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.any(String), d: expect.any(String) })
    const set = parseSigningKeys(JSON.stringify({ keys: [jwk, { ...parseSigningKeys(ed.private)[0]!.publicJwk }] }))
    expect(set[0]!.kid).toBe(jwk.kid)
    expect(set[1]!.publicJwk).not.toHaveProperty('d')
    // An escaped PEM, as a one-line environment variable holds it.
    expect(parseSigningKeys(ec.private.replace(/\n/g, '\\n'))).toHaveLength(1)
  })

  it.each([
    ['not a key', 'neither PEM'],
    ['-----BEGIN PRIVATE KEY-----\nAAAA', 'no complete BEGIN/END block'],
    ['{"kty":"EC"}', 'card signing key 1 is not a usable key'],
    [pem('ec').public, 'hold no private key'],
    [JSON.stringify({ keys: [JSON.parse(generateSigningKey()), 7] }), 'keys[1] is not a JWK object'],
  ])('refuses %j naming the problem', (input, message) => {
    expect(() => parseSigningKeys(input)).toThrow(message)
  })

  it('refuses two keys with one kid', () => {
    const key = generateSigningKey()
    expect(() => parseSigningKeys([key, key])).toThrow('share the kid')
  })
})

describe('signed agent card', () => {
  it('carries a JWS whose jku names the JWKS that holds its key; a changed card no longer verifies', async () => {
    server = await startTestServer({ skills: [echo], signingKeys: generateSigningKey() })
    const card = await readCard(server.url)
    expect(card.signatures).toHaveLength(1)
    const header = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString())
    expect(header).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'JOSE', jku: `${server.url}/.well-known/jwks.json` })
    const keys = await jwksOf(card)
    expect(keys).toEqual([expect.objectContaining({ kid: header.kid, alg: 'ES256', use: 'sig', kty: 'EC' })])
    expect(keys[0]).not.toHaveProperty('d')
    expect(await verifyCardSignature(card, keys)).toBe(true)
    expect(await verifyCardSignature({ ...card, description: 'Something else' }, keys)).toBe(false)
    expect(await verifyCardSignature({ ...card, skills: [...card.skills, { id: 'x', name: 'x', description: 'x', tags: ['x'] }] }, keys)).toBe(false)
  })

  it('rotates: the first private key signs, and a card signed by the retired key still verifies while it is listed', async () => {
    const retired = generateSigningKey()
    const current = generateSigningKey()
    const retiredPublic = parseSigningKeys(retired)[0]!.publicJwk
    server = await startTestServer({ skills: [echo], signingKeys: JSON.stringify({ keys: [JSON.parse(current), retiredPublic] }) })
    const card = await readCard(server.url)
    const keys = await jwksOf(card)
    expect(keys.map((key) => key.kid)).toEqual([JSON.parse(current).kid, JSON.parse(retired).kid])
    const { signatures: _, ...unsigned } = card
    const oldCard = await new CardSigner(parseSigningKeys(retired)).sign(unsigned, `${server.url}/.well-known/jwks.json`)
    expect(await verifyCardSignature(oldCard, keys)).toBe(true)
  })

  it('signs a canonical payload: JCS order, empty members left out', () => {
    const payload = canonicalCardPayload({
      name: 'A',
      description: '',
      version: '1',
      supportedInterfaces: [],
      capabilities: { streaming: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: [],
      skills: [],
      signatures: [{ protected: 'x', signature: 'y' }],
    })
    expect(payload).toBe('{"capabilities":{"streaming":false},"defaultInputModes":["text/plain"],"name":"A","version":"1"}')
  })

  it('serves no JWKS when the card is unsigned', async () => {
    server = await startTestServer({ skills: [echo] })
    expect((await readCard(server.url)).signatures).toBeUndefined()
    expect((await fetch(`${server.url}/.well-known/jwks.json`)).status).toBe(404)
  })
})

describe('protected resource metadata (RFC 9728)', () => {
  it('names the authorization servers and scopes, and every 401 points at it', async () => {
    server = await startTestServer({
      skills: [echo],
      signingKeys: generateSigningKey(),
      protectedResource: { authorizationServers: ['https://login.example.com'], scopes: ['invoices:read', 'invoices:write'] },
    })
    const response = await fetch(`${server.url}/.well-known/oauth-protected-resource`)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=/)
    expect(await response.json()).toEqual({
      resource: server.url,
      authorization_servers: ['https://login.example.com'],
      scopes_supported: ['invoices:read', 'invoices:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Test agent',
      jwks_uri: `${server.url}/.well-known/jwks.json`,
    })
    const refused = await server.rpc('GetTask', { id: 'x' }, { token: 'nobody' })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`)
  })
})

describe('gated card', () => {
  it('is refused to anonymous callers (before any 304) and marked private for the others', async () => {
    server = await startTestServer({ skills: [echo], card: { name: 'Gated', description: 'Needs a key', version: '1', access: 'authenticated' } })
    const anonymous = await fetch(`${server.url}/.well-known/agent-card.json`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=')
    expect(anonymous.headers.get('cache-control')).toBe('no-store')
    expect(await anonymous.text()).not.toContain('echo')
    const alice = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { Authorization: 'Bearer alice' } })
    expect(alice.status).toBe(200)
    expect(alice.headers.get('cache-control')).toBe('private, max-age=300')
    expect(alice.headers.get('vary')).toBe('Host, Authorization')
    const etag = alice.headers.get('etag')!
    expect((await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': etag } })).status).toBe(401)
    const revalidated = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': etag, Authorization: 'Bearer bob' } })
    expect(revalidated.status).toBe(304)
    expect(revalidated.headers.get('cache-control')).toBe('private, max-age=300')
  })

  it('is public by default', async () => {
    server = await startTestServer({ skills: [echo] })
    const response = await fetch(`${server.url}/.well-known/agent-card.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('public, max-age=300')
  })
})

describe.each(BINDINGS)('card trust over %s', (binding) => {
  it('answers 401 with the metadata challenge, and the extended card signed', async () => {
    server = await startTestServer({ skills: [echo], signingKeys: generateSigningKey(), extendedCard: () => [] })
    const client = server.client(binding)
    const refused = await client.call('GetTask', { id: 'x' }, { token: 'nobody' })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`)
    const extended = await client.result('GetExtendedAgentCard', {})
    expect(await verifyCardSignature(extended, await jwksOf(extended))).toBe(true)
  })
})
