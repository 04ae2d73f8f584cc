import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testRegistry } from '../entity/notes-fixture.js'
import { createExchange } from '../exchange/exchange.js'
import { defineSkill } from '../skills/skill.js'
import { a2aRoutes } from './a2a-routes.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'

const echo = defineSkill({ id: 'echo', description: 'echo', handler: async (ctx) => void (await ctx.artifact({ parts: ctx.text })) })

describe('an exchange path given with a trailing slash', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ skills: [echo], path: '/agent/' })
  })
  afterAll(() => server.close())

  it('serves JSON-RPC at the URL its card advertises, with or without the slash', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { protocolBinding: string; url: string }[] }
    const advertised = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')!.url
    expect(advertised).toBe(`${server.url}/agent/`)
    for (const url of [advertised, `${server.url}/agent`]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer alice', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hi') } }),
      })
      expect(response.status, url).toBe(200)
      expect(((await response.json()) as { result: { task: { status: { state: string } } } }).result.task.status.state, url).toBe('TASK_STATE_COMPLETED')
    }
  })
})

describe('an absolute-form request target (as some proxies send it)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ skills: [echo] })
  })
  afterAll(() => server.close())

  /** Sends `method` with the target `http://host/<path>` on the wire, which fetch cannot. */
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const request = httpRequest(server.url, {
        method,
        path: `${server.url}${path}`,
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer alice', 'A2A-Version': '1.0' },
      })
      request.on('error', reject)
      request.on('response', (response) => {
        let text = ''
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }))
      })
      request.end(body)
    })

  it('is served as its path: JSON-RPC, the card and HTTP+JSON', async () => {
    const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hi') } })
    const sent = await send('POST', `${server.exchange.path}?v=1`, rpc)
    expect(sent.status).toBe(200)
    const task = sent.body.result.task as { id: string; status: { state: string } }
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect((await send('GET', '/.well-known/agent-card.json')).body.name).toBe('Test agent')
    const read = await send('GET', `${server.exchange.restPath}/tasks/${task.id}`)
    expect(read).toMatchObject({ status: 200, body: { id: task.id } })
  })
})

describe('an MCP path that is the exchange path', () => {
  it('is refused at configuration, naming both paths, instead of replacing JSON-RPC', () => {
    const exchange = createExchange({ card: { name: 'Tools', description: 'tools', version: '0.0.0' }, tools: testRegistry(), path: '/a2a', resolvePrincipal: () => undefined })
    for (const path of ['/a2a', '/a2a/']) {
      expect(() => a2aRoutes(exchange, { mcp: { path } })).toThrow(`MCP path "${path}" is the exchange's JSON-RPC path "/a2a"`)
    }
    expect(() => a2aRoutes(exchange, { mcp: { path: '/mcp/' } })).not.toThrow()
  })
})
