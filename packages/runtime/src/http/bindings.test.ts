/**
 * What both bindings share, run over each: the gate (content type, body cap, Origin,
 * credentials), the strict decoding of the request body, version and extension negotiation,
 * params refused with the field they name, and the stream seat cap. JSON-RPC answers what a
 * caller can act on as an error on 200; HTTP+JSON answers it under the mapped HTTP status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { BINDINGS, type BindingClient, type WireReply } from '../testing/binding-client.js'
import { gate } from '../testing/gate.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

let hold = gate()
const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await hold.opened
    await ctx.artifact({ parts: ctx.text })
  },
})

describe.each(BINDINGS)('over %s', (binding) => {
  let server: TestServer
  let client: BindingClient
  const ran: string[] = []
  beforeAll(async () => {
    hold.open()
    server = await startTestServer({
      skills: [{ ...echo, handler: (ctx) => (ran.push(ctx.text), echo.handler(ctx)) }],
      allowedOrigins: ['https://tunnel.example.dev'],
      extensions: [{ uri: 'https://ext.example/required/v1', required: true }],
      maxStreamSeatsPerOwner: 1,
    })
    client = server.client(binding, wireCheck)
  })
  afterAll(() => server.close())

  const EXT = { 'A2A-Extensions': 'https://ext.example/required/v1' }
  const send = (headers: Record<string, string> = {}, text = 'hi') => client.call('SendMessage', { message: userMessage(text) }, { headers: { ...EXT, ...headers } })
  const raw = (body: string, headers: Record<string, string> = {}) => client.sendRaw(binding === 'JSONRPC' ? envelope(body) : body, { ...EXT, ...headers })
  /** On JSON-RPC the body under test is the request's params. */
  const envelope = (params: string) => `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${params}}`

  /** A refusal a caller can act on: JSON-RPC's code on 200, or HTTP+JSON's mapped status. */
  const expectError = (reply: WireReply, expected: { code: number; status: number; reason?: string; field?: string }) => {
    expect(reply.status).toBe(binding === 'JSONRPC' ? 200 : expected.status)
    if (binding === 'JSONRPC') expect(reply.error?.code).toBe(expected.code)
    else expect(reply.body.error).toMatchObject({ code: expected.status, status: expect.any(String), message: expect.any(String), details: expect.any(Array) })
    expect(reply.error?.reason).toBe(expected.reason)
    if (expected.field) expect(reply.error?.fields[0]).toBe(expected.field)
  }
  /** A transport refusal: the same HTTP status on both bindings. */
  const expectRefusal = (reply: WireReply, status: number, reason?: string) => {
    expect(reply.status).toBe(status)
    expect(reply.error?.reason).toBe(reason)
  }

  describe('gate', () => {
    it('accepts application/json and application/a2a+json; other types are 415 with -32005 CONTENT_TYPE_NOT_SUPPORTED', async () => {
      expect((await send({ 'Content-Type': 'application/a2a+json' })).result.task).toBeDefined()
      expect((await send({ 'Content-Type': 'application/json; charset=utf-8' })).result.task).toBeDefined()
      const refused = await send({ 'Content-Type': 'text/plain' })
      expectRefusal(refused, 415, 'CONTENT_TYPE_NOT_SUPPORTED')
      if (binding === 'JSONRPC') expect(refused.error!.code).toBe(-32005)
      expect(refused.error!.message).toContain('application/json')
      expect(refused.headers.get('accept')).toBe('application/json, application/a2a+json')
    })

    it('refuses a body over the cap with 413 and runs nothing', async () => {
      const before = ran.length
      expectRefusal(await send({}, 'x'.repeat(1024 * 1024)), 413)
      expect(ran.length).toBe(before)
    })

    it('refuses a foreign browser Origin with 403 before reading the body or the credentials; same-origin and allow-listed pass', async () => {
      expectRefusal(await raw('not json', { Origin: 'https://evil.example', 'Content-Type': 'text/plain', Authorization: '' }), 403)
      expectRefusal(await send({ Origin: 'null' }), 403)
      expect((await send({ Origin: server.url })).status).toBe(200)
      expect((await send({ Origin: 'https://tunnel.example.dev' })).status).toBe(200)
    })

    it('answers 401 with a Bearer challenge when no principal resolves, before any method runs', async () => {
      const before = ran.length
      for (const token of ['', 'wrong']) {
        const reply = await client.call('SendMessage', { message: userMessage('hi') }, { token, headers: EXT })
        expectRefusal(reply, 401)
        expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer /)
        if (binding === 'JSONRPC') expect(reply.error!.code).toBe(-31401)
        else expect(reply.body.error.status).toBe('UNAUTHENTICATED')
      }
      expect(ran.length).toBe(before)
    })
  })

  describe('strict body', () => {
    it('refuses a repeated top-level key, exactly or in another case, as a parse error', async () => {
      const message = JSON.stringify(userMessage('hi'))
      const repeated = await raw(`{"message":${message},"message":${message}}`)
      expectError(repeated, { code: -32700, status: 400 })
      expect(repeated.error!.message).toContain('"message"')
      const cased = await raw(`{"message":${message},"Message":${message}}`)
      expect(cased.error!.message).toContain('"Message"')
    })

    it('answers malformed JSON as -32700 / 400, and a body that is not an object as -32600 / 400', async () => {
      expectError(await raw('{"message":'), { code: -32700, status: 400 })
      expectError(await raw('[1]'), { code: -32600, status: 400 })
    })

    it('answers a body that is not UTF-8 as a parse error', async () => {
      const text = binding === 'JSONRPC' ? envelope('{"x":"_"}') : '{"x":"_"}'
      const bytes = Buffer.from(text)
      bytes[text.indexOf('_')] = 0xff
      const reply = await client.sendRaw(bytes, EXT)
      expectError(reply, { code: -32700, status: 400 })
      expect(reply.error!.message).toContain('UTF-8')
    })
  })

  describe('negotiation', () => {
    it('refuses an absent A2A-Version as 0.3 with -32009 / 400 VERSION_NOT_SUPPORTED naming the version to send', async () => {
      const reply = await send({ 'A2A-Version': '' })
      expectError(reply, { code: -32009, status: 400, reason: 'VERSION_NOT_SUPPORTED' })
      expect(reply.error!.message).toContain('A2A-Version: 1.0')
    })

    it('refuses a request without a required extension with -32008 / 400, and echoes the activated one', async () => {
      expectError(await send({ 'A2A-Extensions': '' }), { code: -32008, status: 400, reason: 'EXTENSION_SUPPORT_REQUIRED' })
      expect((await send()).headers.get('a2a-extensions')).toBe('https://ext.example/required/v1')
    })
  })

  describe('params', () => {
    it.each([
      ['empty parts', { message: { ...userMessage('x'), parts: [] } }, 'message.parts'],
      ['an agent role', { message: { ...userMessage('x'), role: 'ROLE_AGENT' } }, 'message.role'],
      ['a missing messageId', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }, 'message.messageId'],
      ['two spellings of one field', { message: { ...userMessage('x'), context_id: 'a', contextId: 'b' } }, 'message.contextId'],
      ['a negative historyLength', { message: userMessage('x'), configuration: { historyLength: -1 } }, 'configuration.historyLength'],
      ['a historyLength past any int32', { message: userMessage('x'), configuration: { historyLength: 1e20 } }, 'configuration.historyLength'],
    ])('refuses SendMessage with %s naming the field', async (_name, params, field) => {
      expectError(await client.call('SendMessage', params, { headers: EXT }), { code: -32602, status: 400, field })
    })

    it('declines url parts with -32005 / 415 CONTENT_TYPE_NOT_SUPPORTED', async () => {
      const reply = await client.call('SendMessage', { message: { ...userMessage('x'), parts: [{ url: 'https://example.com/a.pdf' }] } }, { headers: EXT })
      expectError(reply, { code: -32005, status: 415, reason: 'CONTENT_TYPE_NOT_SUPPORTED' })
    })

    it('answers an unknown task -32001 / 404 TASK_NOT_FOUND', async () => {
      expectError(await client.call('GetTask', { id: 'nope' }, { headers: EXT }), { code: -32001, status: 404, reason: 'TASK_NOT_FOUND' })
    })
  })

  describe('stream seats', () => {
    it('refuses a stream past the cap with 429 before writing anything', async () => {
      hold = gate()
      const open = await client.stream('SendStreamingMessage', { message: userMessage('a') }, { headers: EXT })
      expect(open.status).toBe(200)
      const count = (await client.result('ListTasks', {}, { headers: EXT })).totalSize
      const refused = await client.stream('SendStreamingMessage', { message: userMessage('b') }, { headers: EXT })
      expect(refused.status).toBe(429)
      expect((await client.result('ListTasks', {}, { headers: EXT })).totalSize).toBe(count)
      hold.open()
      await open.ended
    })
  })
})
