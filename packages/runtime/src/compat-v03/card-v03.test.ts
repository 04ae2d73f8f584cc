import { describe, expect, it } from 'vitest'
import { agentInterfaces } from '../card/agent-card.js'
import { verifyCardSignature } from '../card/card-signing.js'
import { generateSigningKey } from '../card/signing-keys.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { assertWireV03 } from '../testing/wire-schema-v03.js'
import type { AgentCard } from '../wire/types.js'
import { work } from './__fixture__/skills.js'
import { cardToV03 } from './card-v03.js'

const card: AgentCard = {
  name: 'Schemes',
  description: 'every kind of security scheme',
  version: '1.0.0',
  // As an exchange with compat.v03 lists them: the 1.0 bindings, then the JSON-RPC endpoint for 0.3.
  supportedInterfaces: [
    ...agentInterfaces({ jsonRpc: 'http://127.0.0.1:1/a2a', rest: 'http://127.0.0.1:1/a2a/rest' }),
    { url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  capabilities: { streaming: true, extendedAgentCard: true },
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key', description: 'a key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    oauth: {
      oauth2SecurityScheme: {
        flows: {
          clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'reads' } },
          deviceCode: { deviceAuthorizationUrl: 'https://auth.example/device', tokenUrl: 'https://auth.example/token', scopes: {} },
        },
      },
    },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' } },
    mtls: { mtlsSecurityScheme: { description: 'client certificates' } },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { oauth: { list: ['read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 's', description: 'a skill', tags: ['s'] }],
}

describe('the 0.3 card', () => {
  it('takes its url from the 0.3 interface and its security schemes in OpenAPI form, valid against the 0.3 schema', () => {
    const v03 = assertWireV03('AgentCard', cardToV03(card)) as any
    expect(v03).toMatchObject({
      protocolVersion: '0.3.0',
      url: 'http://127.0.0.1:1/a2a',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'http://127.0.0.1:1/a2a', transport: 'JSONRPC' }],
      supportsAuthenticatedExtendedCard: true,
      capabilities: { streaming: true, pushNotifications: false },
      security: [{ bearer: [] }, { oauth: ['read'] }],
    })
    expect(v03.securitySchemes).toEqual({
      key: { type: 'apiKey', in: 'header', name: 'X-Key', description: 'a key' },
      bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' },
      oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'reads' } } } },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' },
      mtls: { type: 'mutualTLS', description: 'client certificates' },
    })
    // 1.0 readers of a header-less fetch still find their interfaces on it.
    expect(v03.supportedInterfaces).toEqual(card.supportedInterfaces)
  })

  it('is signed on its own by a signing agent, and verifies against the published keys', async () => {
    let server: TestServer | undefined
    try {
      server = await startTestServer({ skills: [work], compat: { v03: true }, signingKeys: generateSigningKey() })
      const v03 = (await (await fetch(`${server.url}/.well-known/agent.json`)).json()) as AgentCard
      const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: [] }
      expect(v03.signatures).toHaveLength(1)
      expect(await verifyCardSignature(v03, jwks.keys)).toBe(true)
      expect(await verifyCardSignature({ ...v03, url: 'http://127.0.0.1:2/a2a' } as AgentCard, jwks.keys)).toBe(false)
    } finally {
      await server?.close()
    }
  })
})
