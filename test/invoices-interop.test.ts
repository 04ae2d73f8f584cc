/**
 * The official clients against the invoices example: the A2A SDK calls the derived
 * `entity.invoices` skill and the hand-written `overdue` skill, and the MCP SDK calls the entity
 * tools, each as alice and as bob.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Message, SendMessageRequest, Task } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client'
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createTestApp, type TestApp } from '../examples/invoices/test/support.js'

let app: TestApp

/** A client of one of the example's two agents, resolved from its base URL as the index names it. */
function a2aClient(token: string, agent: 'invoices' | 'reports' = 'invoices'): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set('Authorization', `Bearer ${token}`)
    return fetch(input, { ...init, headers })
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  )
  return factory.createFromUrl(`${app.url}/a2a/${agent}/`)
}

async function mcpClient(token: string): Promise<McpClient> {
  const client = new McpClient({ name: 'interop-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  return client
}

let counter = 0
async function callSkill(client: Client, operation: string, args: Record<string, unknown>): Promise<any> {
  const request = SendMessageRequest.fromJSON({
    message: { messageId: `invoices-${++counter}`, role: 'ROLE_USER', parts: [{ data: { skill: 'entity.invoices', operation, arguments: args } }] },
  })
  const result = await client.sendMessage(request)
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(Message.toJSON(result))}`)
  return Task.toJSON(result)
}

beforeAll(async () => {
  app = await createTestApp()
})
afterAll(() => app?.close())

describe('the invoices example through the official clients', () => {
  it('MCP: alice and bob each see and change only their own rows', async () => {
    const alice = await mcpClient(app.tokens.alice)
    const bob = await mcpClient(app.tokens.bob)
    const names = (await alice.listTools()).tools.map((tool) => tool.name)
    expect(names).toEqual(['invoices_list', 'invoices_get', 'invoices_create', 'invoices_update', 'invoices_delete', 'customers_list', 'customers_get', 'customers_create'])
    const customer = (await alice.callTool({ name: 'customers_create', arguments: { name: 'Acme' } })).structuredContent as any
    const invoice = (
      await alice.callTool({
        name: 'invoices_create',
        arguments: { number: 'INV-1', total: '1200.50', dueAt: '2026-12-31T00:00:00.000Z', customerId: customer.id },
      })
    ).structuredContent as any
    expect(invoice).toMatchObject({ number: 'INV-1', total: '1200.5', currency: 'EUR', paid: false, userId: 'alice' })
    expect(invoice).not.toHaveProperty('note')
    const bobsList = (await bob.callTool({ name: 'invoices_list', arguments: {} })).structuredContent as any
    expect(bobsList.total).toBe(0)
    const bobsGet = await bob.callTool({ name: 'invoices_get', arguments: { id: invoice.id } })
    expect(bobsGet.isError).toBe(true)
    await alice.close()
    await bob.close()
  })

  it("A2A: entity.invoices list answers only the caller's rows", async () => {
    const alice = await a2aClient(app.tokens.alice)
    const bob = await a2aClient(app.tokens.bob)
    const card = await alice.getAgentCard()
    expect(card.skills.map((skill) => skill.id)).toEqual(['entity.invoices', 'entity.customers'])
    const listed = await callSkill(alice, 'list', { limit: 10 })
    expect(listed.status.state).toBe('TASK_STATE_COMPLETED')
    expect(listed.artifacts[0].name).toBe('invoices.list')
    const page = listed.artifacts[0].parts[0].data
    expect(page.total).toBeGreaterThanOrEqual(1)
    expect(page.data.every((row: any) => row.userId === 'alice')).toBe(true)
    const bobs = await callSkill(bob, 'list', {})
    expect(bobs.artifacts[0].parts[0].data).toMatchObject({ data: [], total: 0 })
    const refused = await callSkill(bob, 'purge', {})
    expect(refused.status.state).toBe('TASK_STATE_REJECTED')
  })

  it('A2A: the hand-written overdue skill answers by name', async () => {
    const bob = await a2aClient(app.tokens.bob, 'reports')
    const request = SendMessageRequest.fromJSON({
      message: { messageId: `overdue-${++counter}`, role: 'ROLE_USER', parts: [{ text: 'What is overdue?' }], metadata: { skill: 'overdue' } },
    })
    const result = await bob.sendMessage(request)
    if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(Message.toJSON(result))}`)
    const task = Task.toJSON(result) as any
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.status.message.parts[0].text).toBe('Nothing is overdue.')
    expect(task.artifacts[0].parts[0].data).toEqual({ invoices: [], totals: {} })
  })
})

describe('the invoices example over HTTP', () => {
  it('names no framework on any response (no X-Powered-By)', async () => {
    for (const path of ['/a2a/invoices', '/a2a/reports/.well-known/agent-card.json', '/a2a/agents', '/mcp', '/no-such-page']) {
      const response = await fetch(`${app.url}${path}`, { method: path === '/mcp' ? 'POST' : 'GET' })
      await response.arrayBuffer()
      expect(response.headers.get('x-powered-by'), path).toBeNull()
    }
  })
})

// Last: it adds rows to alice's, which the tests above count.
describe('the invoices example under a narrowed credential', () => {
  it('MCP: a key narrowed to invoices:read lists and reads invoices, and reaches nothing else', async () => {
    const alice = await mcpClient(app.tokens.alice)
    const reader = await mcpClient(app.tokens.reader)
    expect((await reader.listTools()).tools.map((tool) => tool.name)).toEqual(['invoices_list', 'invoices_get'])
    const customer = (await alice.callTool({ name: 'customers_create', arguments: { name: 'Reader Co' } })).structuredContent as any
    const made = (
      await alice.callTool({ name: 'invoices_create', arguments: { number: 'INV-READ-1', total: '10.00', dueAt: '2026-12-31T00:00:00.000Z', customerId: customer.id } })
    ).structuredContent as any
    expect((await reader.callTool({ name: 'invoices_get', arguments: { id: made.id } })).structuredContent).toMatchObject({ id: made.id })
    for (const [name, args] of [
      ['invoices_delete', { id: made.id }],
      ['customers_list', {}],
      ['invoices_purge', {}],
    ] as const) {
      expect(await reader.callTool({ name, arguments: args })).toMatchObject({ isError: true, content: [{ text: `tool unavailable: ${name}` }] })
    }
    expect((await alice.callTool({ name: 'invoices_get', arguments: { id: made.id } })).isError).toBeFalsy()
    await Promise.all([alice.close(), reader.close()])
  })
})
