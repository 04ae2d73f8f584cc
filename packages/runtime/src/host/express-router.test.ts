import { once } from 'node:events'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgentHost, type AgentHost } from '../agents/agent-host.js'
import { generateSigningKey } from '../card/signing-keys.js'
import { testRegistry } from '../entity/notes-fixture.js'
import { createExchange, type Exchange } from '../exchange/exchange.js'
import { a2aRouter, agentsRouter } from './express-router.js'
import { a2aListener } from './a2a-listener.js'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, tokenResolver, userMessage } from '../testing/test-server.js'

const echo = defineSkill({ id: 'echo', description: 'echoes', handler: (ctx) => ctx.complete(ctx.text) })
const card = { name: 'Plain', description: 'An agent in an app that keeps Express defaults', version: '1.0.0' }
const resolvePrincipal = tokenResolver({ alice: { owner: 'alice' } })
const headers = { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: 'Bearer alice' }
const rpcBody = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })

async function listen(listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(listener).listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

// Apps that keep Express's default (X-Powered-By on) still send none from the runtime's routes,
// whether the routers run inside the app or a2aListener in front of it.
describe.each(['router', 'listener'] as const)('the runtime routes name no framework (%s mount)', (mount) => {
  let exchange: Exchange
  let host: AgentHost
  let server: Server
  let url: string

  beforeAll(async () => {
    exchange = createExchange({ card, resolvePrincipal, skills: [echo], tools: testRegistry(), signingKeys: generateSigningKey() })
    host = createAgentHost({ resolvePrincipal, agents: [{ id: 'books', skills: [echo], card }], basePath: '/hosted' })
    const app = express()
    if (mount === 'router') app.use(a2aRouter(exchange), agentsRouter(host))
    app.get('/app-route', (_request, response) => void response.send('the app'))
    ;({ server, url } = await listen(mount === 'router' ? app : a2aListener(exchange, a2aListener(host, app))))
  })
  afterAll(async () => {
    await exchange.shutdown({ timeoutMs: 500 })
    await host.shutdown({ timeoutMs: 500 })
    server.closeAllConnections()
    server.close()
  })

  it('the app route keeps Express defaults (the check below can fail)', async () => {
    expect((await fetch(`${url}/app-route`)).headers.get('x-powered-by')).toBe('Express')
  })

  it.each([
    ['JSON-RPC', '/a2a', { method: 'POST', headers, body: rpcBody('SendMessage', { message: userMessage('hi', { metadata: { skill: 'echo' } }) }) }],
    ['JSON-RPC refusal', '/a2a', { method: 'POST', headers: { ...headers, Authorization: 'Bearer nobody' }, body: rpcBody('GetTask', { id: 'x' }) }],
    ['HTTP+JSON', '/a2a/rest/tasks/unknown', { headers }],
    ['agent card', '/.well-known/agent-card.json', {}],
    ['artifact', '/a2a/artifacts/task/file', { headers }],
    ['protected resource metadata', '/.well-known/oauth-protected-resource', {}],
    ['JWKS', '/.well-known/jwks.json', {}],
    ['MCP', '/mcp', { method: 'POST', headers: { ...headers, Accept: 'application/json, text/event-stream' }, body: rpcBody('tools/list', {}) }],
    ['hosted agent', '/hosted/books', { method: 'POST', headers, body: rpcBody('GetTask', { id: 'x' }) }],
    ['hosted agent card', '/hosted/books/.well-known/agent-card.json', {}],
    ['agent index', '/hosted/agents', { headers }],
  ] as const)('%s (%s)', async (_name, path, init) => {
    const response = await fetch(`${url}${path}`, init as RequestInit)
    await response.arrayBuffer()
    expect(response.status, path).toBeLessThan(500)
    expect(response.headers.get('x-powered-by'), path).toBeNull()
  })
})

describe('startTestServer', () => {
  it('answers with no X-Powered-By, on its routes and off them', async () => {
    const server = await startTestServer({ skills: [echo] })
    try {
      for (const path of ['/a2a', '/.well-known/agent-card.json', '/not-a-route']) {
        const response = await fetch(`${server.url}${path}`)
        await response.arrayBuffer()
        expect(response.headers.get('x-powered-by'), path).toBeNull()
      }
    } finally {
      await server.close()
    }
  })
})
