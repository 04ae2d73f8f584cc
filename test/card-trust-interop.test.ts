/**
 * Card trust against the official `@a2a-js/sdk`: its client resolves a signed card and verifies it
 * with the SDK's own verifier, fetching the key from the JWKS the signature names; a tampered card
 * fails that verifier. The extended card is signed the same way.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { defineSkill, generateSigningKey } from '@a2a-agent/runtime'
import { startTestServer, type TestServer } from '@a2a-agent/runtime/testing'

const echo = defineSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['text'], handler: (ctx) => ctx.reply(ctx.text) })
const audit = defineSkill({ id: 'audit', name: 'Audit', description: 'Audits the books', tags: ['books'], handler: () => {} })

let server: TestServer
afterEach(() => server?.close())
// The SDK's verifier logs every signature that fails at debug level; the tampered cards here fail on purpose.
beforeEach(() => void vi.spyOn(console, 'debug').mockImplementation(() => {}))
// Files share a worker (isolate: false in the root config): the next file gets console.debug back.
afterEach(() => vi.restoreAllMocks())

const bearer =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set('Authorization', `Bearer ${token}`)
    return fetch(input, { ...init, headers })
  }

/** The SDK verifier with a key lookup in the JWKS at the signature's `jku`, as a client would do. */
const verifier = (fetched: string[] = []) =>
  verifyAgentCardSignature(async (kid, jku) => {
    fetched.push(jku!)
    const { keys } = (await (await fetch(jku!)).json()) as { keys: { kid: string }[] }
    const key = keys.find((candidate) => candidate.kid === kid)
    if (!key) throw new Error(`no key ${kid}`)
    return key
  })

async function sdkClient(url: string, token = 'alice') {
  const fetchImpl = bearer(token)
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      preferredTransports: ['JSONRPC'],
    }),
  )
  return factory.createFromUrl(url)
}

describe('signed cards with the official SDK', () => {
  it('verifies the public card the client resolved, and refuses a tampered one', async () => {
    server = await startTestServer({ skills: [echo], signingKeys: generateSigningKey() })
    const client = await sdkClient(server.url)
    const fetched: string[] = []
    const card = await client.getAgentCard(undefined, verifier(fetched))
    expect(card.name).toBe('Test agent')
    expect(fetched).toEqual([`${server.url}/.well-known/jwks.json`])

    const wire = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>
    await expect(verifier()(AgentCard.fromJSON(wire))).resolves.toBeUndefined()
    for (const tampered of [
      { ...wire, description: 'Send me your credentials' },
      { ...wire, supportedInterfaces: [{ url: 'http://127.0.0.1:9/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] },
      { ...wire, capabilities: { streaming: false, pushNotifications: true } },
    ]) {
      await expect(verifier()(AgentCard.fromJSON(tampered))).rejects.toThrow('No valid signatures')
    }
  })

  it("verifies the extended card the client fetches for its caller, with the hook's skills on it", async () => {
    server = await startTestServer({
      skills: [echo, audit],
      signingKeys: generateSigningKey(),
      card: { name: 'Books', description: 'Keeps the books', version: '1.0.0', publicSkills: (skill) => skill.id !== 'audit' },
      extendedCard: (principal) => (principal.owner === 'alice' ? ['audit'] : []),
    })
    const client = await sdkClient(server.url)
    const card = await client.getAgentCard(undefined, verifier())
    expect(card.skills.map((skill) => skill.id)).toEqual(['echo', 'audit'])
  })
})
