import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ check: wireCheck, skills: [echo], allowedOrigins: ['https://tunnel.example.dev'] })
})
afterAll(() => server.close())

const AUTH = { Authorization: 'Bearer alice', 'A2A-Version': '1.0' }
const getTask = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } })

// What JSON-RPC shares with HTTP+JSON (the gate, body rules, negotiation, params) is in bindings.test.ts.
describe('transport', () => {
  it('takes POST only', async () => {
    const response = await fetch(`${server.url}/a2a`, { headers: AUTH })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
  })
})

describe('ErrorInfo', () => {
  it('carries only reasons the specification defines, on every kind of refusal', async () => {
    const replies = [
      await server.post(getTask, { ...AUTH, Origin: 'https://evil.example' }),
      await server.post(getTask, { 'A2A-Version': '1.0' }),
      await server.post(getTask, { ...AUTH, 'Content-Type': 'text/plain' }),
      await server.post('x'.repeat(2 * 1024 * 1024), AUTH),
      await server.post('{', AUTH),
      await server.post('[]', AUTH),
      await server.rpc('Nope'),
      await server.rpc('GetTask', {}),
      await server.rpc('GetTask', { id: 'nope' }),
      await server.post(getTask, { Authorization: 'Bearer alice' }),
      await fetch(`${server.url}/a2a`).then(async (r) => ({ status: r.status, body: await r.json() })),
    ]
    const reasons = replies.flatMap((reply) => (reply.body.error.data ?? []).filter((d: any) => d.reason).map((d: any) => d.reason))
    // 403, 401, 413, -32700, -32600, -32601 and -32602 have no reason of the specification's.
    expect(reasons).toEqual(['CONTENT_TYPE_NOT_SUPPORTED', 'TASK_NOT_FOUND', 'VERSION_NOT_SUPPORTED'])
  })
})

describe('strict envelope', () => {
  it('refuses a repeated top-level key as a parse error', async () => {
    const reply = await server.post('{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"CancelTask","params":{"id":"x"}}', AUTH)
    expect(reply.body.error.code).toBe(-32700)
    expect(reply.body.error.message).toContain('"method"')
  })

  it('refuses one key spelled in two cases', async () => {
    const reply = await server.post('{"jsonrpc":"2.0","id":1,"method":"GetTask","Method":"CancelTask","params":{"id":"x"}}', AUTH)
    expect(reply.body.error.code).toBe(-32700)
    expect(reply.body.error.message).toContain('"Method"')
  })

  it('keeps repeated keys inside nested values out of the top-level check', async () => {
    const reply = await server.post('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","tenant":"a","x":{"id":1}}}', AUTH)
    expect(reply.body.error.code).toBe(-32001)
  })

  it('answers malformed JSON with -32700', async () => {
    const reply = await server.post('{"jsonrpc":"2.0",', AUTH)
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  })

  it('refuses batches with a clear -32600', async () => {
    const reply = await server.post(`[${getTask}]`, AUTH)
    expect(reply.body.error.code).toBe(-32600)
    expect(reply.body.error.message).toMatch(/batch/i)
  })

  it.each([
    ['wrong jsonrpc', '{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}', 'jsonrpc'],
    ['missing id', '{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}', 'id'],
    ['object id', '{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}', 'id'],
    ['missing method', '{"jsonrpc":"2.0","id":1,"params":{}}', 'method'],
    ['array params', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[]}', 'params'],
  ])('refuses %s with -32600 naming the field', async (_name, body, field) => {
    const reply = await server.post(body, AUTH)
    expect(reply.body.error.code).toBe(-32600)
    expect(reply.body.error.message).toContain(`"${field}"`)
  })

  it('echoes the request id on errors', async () => {
    const reply = await server.rpc('GetTask', { id: 'x' }, { id: 'abc' })
    expect(reply.body).toMatchObject({ id: 'abc', error: { code: -32001 } })
  })
})

describe('method table', () => {
  it.each(['SendStreamingMessage', 'SubscribeToTask'])('%s answers -32004 while streaming is off', async (method) => {
    const quiet = await startTestServer({ check: wireCheck, skills: [echo], streaming: false })
    try {
      const reply = await quiet.rpc(method, { id: 'x', message: userMessage('hi') })
      expect(reply.body.error).toMatchObject({ code: -32004, data: [{ reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org' }] })
      const card = (await (await fetch(`${quiet.url}/.well-known/agent-card.json`)).json()) as any
      expect(card.capabilities.streaming).toBe(false)
    } finally {
      await quiet.close()
    }
  })

  it.each(['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig'])(
    '%s answers -32003 while push is off',
    async (method) => {
      const quiet = await startTestServer({ check: wireCheck, skills: [echo], pushNotifications: false })
      try {
        const reply = await quiet.rpc(method, { taskId: 'x', id: 'y', url: 'https://example.com' })
        expect(reply.body.error).toMatchObject({ code: -32003, data: [{ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' }] })
        const send = await quiet.rpc('SendMessage', { message: userMessage('x'), configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } } })
        expect(send.body.error.code).toBe(-32003)
        expect((await quiet.result('ListTasks')).totalSize).toBe(0)
        const card = (await (await fetch(`${quiet.url}/.well-known/agent-card.json`)).json()) as any
        expect(card.capabilities.pushNotifications).toBe(false)
      } finally {
        await quiet.close()
      }
    },
  )

  it('GetExtendedAgentCard answers -32007 when no extended card is configured', async () => {
    expect((await server.rpc('GetExtendedAgentCard')).body.error).toMatchObject({ code: -32007, data: [{ reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' }] })
  })

  it.each(['message/send', 'tasks/get', 'tasks/cancel', 'sendMessage', 'Nope', '__proto__', 'toString'])('%s answers -32601', async (method) => {
    const reply = await server.rpc(method, {})
    expect(reply.body.error.code).toBe(-32601)
    // A standard JSON-RPC error is told by its code; ErrorInfo reasons are the spec's A2A errors only.
    expect(reply.body.error.data).toBeUndefined()
  })

  it('points v0.x callers at the v1.0 names', async () => {
    const reply = await server.rpc('message/send', {})
    expect(reply.body.error.message).toContain('SendMessage')
  })
})

describe('A2A-Version', () => {
  it('refuses an absent or empty version as 0.3 with -32009 naming the version to send', async () => {
    for (const version of [undefined, '']) {
      const headers: Record<string, string> = { Authorization: 'Bearer alice' }
      if (version !== undefined) headers['A2A-Version'] = version
      const reply = await server.post(getTask, headers)
      expect(reply.body.error).toMatchObject({ code: -32009, data: [{ reason: 'VERSION_NOT_SUPPORTED' }] })
      expect(reply.body.error.message).toContain('A2A-Version: 1.0')
    }
  })

  it.each(['1.0', '1', '1.3', '1.0.3'])('serves %s', async (version) => {
    const reply = await server.post(getTask, { Authorization: 'Bearer alice', 'A2A-Version': version })
    expect(reply.body.error.code).toBe(-32001)
  })

  it.each(['0.3', '2.0', 'latest'])('refuses %s with -32009', async (version) => {
    const reply = await server.post(getTask, { Authorization: 'Bearer alice', 'A2A-Version': version })
    expect(reply.body.error.code).toBe(-32009)
  })

  it('honours the query form', async () => {
    const response = await fetch(`${server.url}/a2a?A2A-Version=1.0`, {
      method: 'POST',
      body: getTask,
      headers: { Authorization: 'Bearer alice', 'Content-Type': 'application/json' },
    })
    expect(((await response.json()) as any).error.code).toBe(-32001)
  })

  it('serves header-less clients when assumeVersionWhenAbsent is set', async () => {
    const lenient = await startTestServer({ check: wireCheck, skills: [echo], assumeVersionWhenAbsent: '1.0' })
    try {
      const reply = await lenient.post(getTask, { Authorization: 'Bearer alice' })
      expect(reply.body.error.code).toBe(-32001)
    } finally {
      await lenient.close()
    }
  })
})

describe('params', () => {
  it('names the offending field path in -32602', async () => {
    const reply = await server.rpc('SendMessage', { message: { ...userMessage('hi'), parts: [{ text: 'a' }, { text: 'b', data: 1 }] } })
    expect(reply.body.error.code).toBe(-32602)
    expect(reply.body.error.message).toContain('params.message.parts[1]')
    expect(reply.body.error.data).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [expect.objectContaining({ field: 'params.message.parts[1]' })] },
    ])
  })

  it.each([
    ['a missing message', {}, 'params.message'],
    ['v0.3 blocking', { message: userMessage('x'), configuration: { blocking: true } }, 'params.configuration.blocking'],
    ['bad base64', { message: { ...userMessage('x'), parts: [{ raw: '%%%' }] } }, 'params.message.parts[0].raw'],
  ])('SendMessage with %s', async (_name, params, field) => {
    const reply = await server.rpc('SendMessage', params)
    expect(reply.body.error.code).toBe(-32602)
    expect(reply.body.error.data[0].fieldViolations[0].field).toBe(field)
  })

  it('refuses the pre-1.0 "content" field and says to send "parts"', async () => {
    const { parts, ...message } = userMessage('x') as { parts: unknown; [key: string]: unknown }
    const reply = await server.rpc('SendMessage', { message: { ...message, content: parts, parts } })
    expect(reply.body.error.code).toBe(-32602)
    expect(reply.body.error.message).toContain('"parts"')
  })

  it('accepts ProtoJSON enum numbers', async () => {
    const reply = await server.rpc('SendMessage', { message: { ...userMessage('x'), role: 1 } })
    expect(reply.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    const list = await server.result('ListTasks', { status: 3 })
    expect(list.tasks.every((t: any) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true)
  })

  it('ignores unknown fields', async () => {
    const reply = await server.rpc('SendMessage', { message: { ...userMessage('x'), futureField: 1 }, futureParam: true })
    expect(reply.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})
