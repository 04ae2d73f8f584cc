import type { AddressInfo } from 'node:net'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExchange } from '../exchange/exchange.js'
import { a2aRouter } from '../host/express-router.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { entityMessage, mcpClient, testRegistry } from './notes-fixture.js'

// MCP through the official SDK client over real HTTP, and its parity with the A2A entity skills.
describe('MCP over Streamable HTTP', () => {
  let server: TestServer
  const clients: Client[] = []
  const mcpUrl = () => new URL(`${server.url}/mcp`)
  const connect = async (headers: Record<string, string>) => {
    const client = await mcpClient(mcpUrl(), headers)
    clients.push(client)
    return client
  }
  const send = async (data: unknown) => (await server.result('SendMessage', { message: entityMessage(data) })).task

  beforeAll(async () => {
    server = await startTestServer({ tools: testRegistry() })
  })
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()))
    await server.close()
  })

  it('lists the enabled tools with their schemas and acts as the calling user', async () => {
    const alice = await connect({ Authorization: 'Bearer alice' })
    expect(alice.getServerVersion()).toMatchObject({ name: 'Test agent', version: '0.0.0' })
    const { tools } = await alice.listTools()
    expect(tools.map((t) => t.name)).toEqual(['notes_list', 'notes_get', 'notes_create', 'notes_update', 'notes_delete', 'billing_invoices_list', 'billing_invoices_get'])
    const create = tools.find((t) => t.name === 'notes_create')!
    expect(create.inputSchema).toMatchObject({ type: 'object', required: ['title'], additionalProperties: false })
    expect(create.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })

    const made = await alice.callTool({ name: 'notes_create', arguments: { title: 'Buy milk', due_at: '2026-09-01T10:00:00Z' } })
    expect(made.isError).toBeFalsy()
    expect(made.structuredContent).toMatchObject({ title: 'Buy milk', due_at: '2026-09-01T10:00:00Z', done: false })
    const id = (made.structuredContent as { id: string }).id
    expect(JSON.parse((made.content as { text: string }[])[0]!.text)).toEqual(made.structuredContent)

    const listed = await alice.callTool({ name: 'notes_list', arguments: {} })
    expect(listed.structuredContent).toMatchObject({ page: 1, perPage: 20, total: 1, data: [{ id, title: 'Buy milk' }] })
    const updated = await alice.callTool({ name: 'notes_update', arguments: { id, done: true } })
    expect(updated.structuredContent).toMatchObject({ id, done: true })

    const bob = await connect({ Authorization: 'Bearer bob' })
    expect((await bob.callTool({ name: 'notes_list', arguments: {} })).structuredContent).toMatchObject({ total: 0, data: [] })
    const foreign = await bob.callTool({ name: 'notes_get', arguments: { id } })
    expect(foreign).toMatchObject({ isError: true, content: [{ type: 'text', text: `note ${id} not found` }] })
    expect((await alice.callTool({ name: 'notes_get', arguments: { id } })).structuredContent).toMatchObject({ id })
  })

  it('answers invalid arguments as an isError result naming the field', async () => {
    const alice = await connect({ Authorization: 'Bearer alice' })
    const bad = await alice.callTool({ name: 'notes_create', arguments: { title: 42 } })
    expect(bad).toMatchObject({ isError: true, content: [{ type: 'text', text: 'invalid arguments for notes_create: title must be string' }] })
    const extra = await alice.callTool({ name: 'notes_list', arguments: { owner: 'bob' } })
    expect(extra).toMatchObject({ isError: true, content: [{ text: 'invalid arguments for notes_list: owner is not an accepted argument' }] })
  })

  it('refuses the disabled tool exactly like an unknown one', async () => {
    const alice = await connect({ Authorization: 'Bearer alice' })
    expect(await alice.callTool({ name: 'secrets_list', arguments: {} })).toEqual({ isError: true, content: [{ type: 'text', text: 'tool unavailable: secrets_list' }] })
    expect(await alice.callTool({ name: 'nope', arguments: {} })).toEqual({ isError: true, content: [{ type: 'text', text: 'tool unavailable: nope' }] })
  })

  it('answers 401 with a Bearer challenge and a JSON-RPC body without a principal', async () => {
    await expect(connect({})).rejects.toMatchObject({ code: 401 })
    await expect(connect({ Authorization: 'Bearer mallory' })).rejects.toMatchObject({ code: 401 })
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"$/)
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/Authentication required/) } })
  })

  it("refuses a foreign browser Origin with 403 and admits the request's own", async () => {
    await expect(connect({ Authorization: 'Bearer alice', Origin: 'https://evil.example' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('may not call this server from a browser'),
    })
    const own = await connect({ Authorization: 'Bearer alice', Origin: server.url })
    expect((await own.listTools()).tools.length).toBe(7)
  })

  it('answers other methods 405 with Allow, and a body that is not JSON -32700', async () => {
    const get = await fetch(mcpUrl(), { headers: { Authorization: 'Bearer alice', Accept: 'text/event-stream' } })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    const garbled = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { Authorization: 'Bearer alice', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":',
    })
    expect(garbled.status).toBe(400)
    expect(await garbled.json()).toMatchObject({ error: { code: -32700 } })
  })

  it('caps the body like /a2a', async () => {
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { Authorization: 'Bearer alice', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'notes_create', arguments: { title: 'x'.repeat(1024 * 1024) } } }),
    })
    expect(response.status).toBe(413)
  })

  const postMcp = async (params: string) => {
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { Authorization: 'Bearer alice', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${params}}`,
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  it('answers arguments that are not an object with invalid params (-32602) naming them', async () => {
    for (const [args, kind] of [
      ['null', 'null'],
      ['[1]', 'an array'],
      ['"x"', 'string'],
    ]) {
      const { status, body } = await postMcp(`{"name":"notes_list","arguments":${args}}`)
      expect(status).toBe(200)
      expect(body).toMatchObject({
        id: 7,
        error: { code: -32602, message: `Invalid params: params.arguments: must be an object holding the tool's arguments (or left out), not ${kind}` },
      })
    }
  })

  it('refuses a __proto__ argument key with the text /a2a gives', async () => {
    const { body } = await postMcp('{"name":"notes_create","arguments":{"title":"x","__proto__":{"admin":true}}}')
    const task = await send(JSON.parse('{"skill":"entity.notes","operation":"create","arguments":{"title":"x","__proto__":{"admin":true}}}'))
    expect(body.result).toMatchObject({ isError: true, content: [{ text: 'invalid arguments for notes_create: __proto__ is not an accepted argument' }] })
    expect(task.status.message.parts[0].text).toBe(body.result.content[0].text)
  })

  it('holds tool arguments to the depth and string rules of /a2a', async () => {
    const deep = await postMcp(`{"name":"notes_create","arguments":{"title":${'['.repeat(5000)}${']'.repeat(5000)}}}`)
    expect(deep.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.arguments.title') })
    expect(deep.body.error.message).toContain('nests deeper than 64 levels (maxJsonDepth)')
    const nul = await postMcp('{"name":"notes_create","arguments":{"title":"a\\u0000b"}}')
    expect(nul.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.arguments.title: contains U+0000') })
  })

  it('refuses the disabled entity with the text MCP gives', async () => {
    const alice = await connect({ Authorization: 'Bearer alice' })
    const overMcp = await alice.callTool({ name: 'secrets_list', arguments: {} })
    const task = await send({ skill: 'entity.secrets', operation: 'list' })
    expect(task.status.state).toBe('TASK_STATE_FAILED')
    expect(task.status.message.parts[0].text).toBe((overMcp.content as { text: string }[])[0]!.text)
    expect(task.status.message.parts[0].text).toBe('tool unavailable: secrets_list')
  })
})

describe('a2aRouter', () => {
  it('mounts MCP at a chosen path, or not at all, through a2aRouter', async () => {
    const exchange = createExchange({ card: { name: 'Notes', description: 'Notes agent', version: '1.2.3' }, resolvePrincipal: () => ({ owner: 'alice' }), tools: testRegistry() })
    const app = express()
    app.use('/custom', a2aRouter(exchange, { mcp: false }))
    app.use(a2aRouter(exchange, { mcp: { path: '/tools/mcp' } }))
    const listener = app.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => listener.once('listening', resolve))
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`
    try {
      const client = await mcpClient(new URL(`${base}/tools/mcp`), {})
      expect((await client.listTools()).tools).toHaveLength(7)
      await client.close()
      expect((await fetch(`${base}/mcp`, { method: 'POST' })).status).toBe(404)
      expect((await fetch(`${base}/custom/mcp`, { method: 'POST' })).status).toBe(404)
    } finally {
      listener.closeAllConnections()
      await new Promise<void>((resolve) => listener.close(() => resolve()))
    }
  })
})
