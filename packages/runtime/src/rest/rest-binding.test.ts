import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { gate } from '../testing/gate.js'
import { openSse } from '../testing/sse-client.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { assertWire, type WireType } from '../testing/wire-schema.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ name: 'echo', parts: ctx.text })
  },
})
const replier = defineSkill({ id: 'reply', description: 'replies', handler: (ctx) => ctx.reply(`re: ${ctx.text}`) })
let hold = gate()
const slow = defineSkill({
  id: 'slow',
  description: 'waits for the test',
  handler: async (ctx) => {
    await ctx.working()
    await hold.opened
    await ctx.artifact({ parts: 'late' })
  },
})

let server: TestServer
let base: string
beforeAll(async () => {
  server = await startTestServer({ skills: [echo, replier, slow], allowPrivatePush: true })
  base = `${server.url}/a2a/rest`
})
afterAll(async () => {
  hold.open()
  await server.close()
})

const HEADERS = { Authorization: 'Bearer alice', 'A2A-Version': '1.0' }

/** One REST call; the body is parsed and, on success, checked against the schema type given. */
async function rest(verb: string, path: string, options: { body?: unknown; headers?: Record<string, string>; type?: WireType } = {}) {
  const response = await fetch(`${base}${path}`, {
    method: verb,
    headers: { ...HEADERS, ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...options.headers },
    ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  })
  const text = await response.text()
  const body = text ? JSON.parse(text) : undefined
  if (response.ok && options.type) assertWire(options.type, body)
  return { status: response.status, headers: response.headers, body }
}

const send = async (text: string, extra: Record<string, unknown> = {}) =>
  (await rest('POST', '/message:send', { body: { message: userMessage(text, extra) }, type: 'SendMessageResponse' })).body

/** A google.rpc.Status body with the given HTTP status, google code and ErrorInfo reason. */
const status = (code: number, name: string, reason?: string) => ({
  error: expect.objectContaining({
    code,
    status: name,
    message: expect.any(String),
    details: reason
      ? expect.arrayContaining([expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' })])
      : expect.any(Array),
  }),
})

describe('HTTP+JSON routes', () => {
  it('POST /message:send answers {task}, or {message} for a direct reply', async () => {
    const sent = await send('hi', { skill: 'echo' })
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(sent.task.artifacts[0].parts).toEqual([{ text: 'hi' }])
    const replied = await send('ping', { skill: 'reply' })
    expect(replied.message.parts).toEqual([{ text: 're: ping' }])
  })

  it('GET /tasks/{id} reads the task, historyLength from the query, under either field name', async () => {
    const { task } = await send('hi', { skill: 'echo' })
    const got = await rest('GET', `/tasks/${task.id}`, { type: 'Task' })
    expect(got.status).toBe(200)
    expect(got.body.id).toBe(task.id)
    expect((await rest('GET', `/tasks/${task.id}?historyLength=0`, { type: 'Task' })).body.history).toBeUndefined()
    expect((await rest('GET', `/tasks/${task.id}?history_length=0`, { type: 'Task' })).body.history).toBeUndefined()
  })

  it('GET /tasks lists with query filters: contextId, status (short or full name), pageSize, includeArtifacts', async () => {
    await send('a', { skill: 'echo', contextId: 'rest-ctx' })
    await send('b', { skill: 'echo', contextId: 'rest-ctx' })
    const page = await rest('GET', '/tasks?contextId=rest-ctx&pageSize=1&includeArtifacts=true', { type: 'ListTasksResponse' })
    expect(page.body).toMatchObject({ totalSize: 2, pageSize: 1 })
    expect(page.body.tasks[0].artifacts).toHaveLength(1)
    const next = await rest('GET', `/tasks?contextId=rest-ctx&pageSize=1&pageToken=${encodeURIComponent(page.body.nextPageToken)}`, { type: 'ListTasksResponse' })
    expect(next.body.tasks).toHaveLength(1)
    expect(next.body.tasks[0].artifacts).toBeUndefined()
    expect((await rest('GET', '/tasks?contextId=rest-ctx&status=completed')).body.totalSize).toBe(2)
    expect((await rest('GET', '/tasks?contextId=rest-ctx&status=TASK_STATE_WORKING')).body.totalSize).toBe(0)
  })

  it('refuses bad query values with 400 naming the field, and a field given twice', async () => {
    const big = await rest('GET', '/tasks?pageSize=500')
    expect(big.status).toBe(400)
    expect(big.body).toEqual(status(400, 'INVALID_ARGUMENT'))
    expect(big.body.error.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'pageSize', description: 'must be 1..100' }] }])
    const twice = await rest('GET', '/tasks?pageSize=1&pageSize=2')
    expect(twice.body.error.details[0].fieldViolations[0].field).toBe('pageSize')
    expect((await rest('GET', '/tasks?includeArtifacts=yes')).body.error.details[0].fieldViolations[0].field).toBe('includeArtifacts')
  })

  it('POST /tasks/{id}:cancel cancels; a second cancel is 409 TASK_NOT_CANCELABLE', async () => {
    hold = gate()
    const { task } = (await rest('POST', '/message:send', { body: { message: userMessage('x', { skill: 'slow' }), configuration: { returnImmediately: true } } })).body
    const canceled = await rest('POST', `/tasks/${task.id}:cancel`, { type: 'Task' })
    expect(canceled.body.status.state).toBe('TASK_STATE_CANCELED')
    const again = await rest('POST', `/tasks/${task.id}:cancel`, { body: { metadata: { why: 'twice' } } })
    expect(again.status).toBe(409)
    expect(again.body).toEqual(status(409, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'))
    hold.open()
  })

  it('answers an unknown task 404 with a google.rpc.Status carrying ErrorInfo TASK_NOT_FOUND', async () => {
    const missing = await rest('GET', '/tasks/nope')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toContain('application/json')
    expect(missing.body).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'Task not found: nope',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'nope' } }],
      },
    })
  })

  it('push configs: create, get, list and delete under /tasks/{id}/pushNotificationConfigs', async () => {
    const { task } = await send('hi', { skill: 'echo' })
    const path = `/tasks/${task.id}/pushNotificationConfigs`
    const created = await rest('POST', path, { body: { url: 'http://127.0.0.1:9/hook', token: 'tok' }, type: 'TaskPushNotificationConfig' })
    expect(created.body).toMatchObject({ taskId: task.id, url: 'http://127.0.0.1:9/hook', token: 'tok' })
    const { id } = created.body
    expect((await rest('GET', `${path}/${id}`, { type: 'TaskPushNotificationConfig' })).body.id).toBe(id)
    expect((await rest('GET', path, { type: 'ListTaskPushNotificationConfigsResponse' })).body.configs).toHaveLength(1)
    const deleted = await rest('DELETE', `${path}/${id}`)
    expect(deleted).toMatchObject({ status: 200, body: {} })
    expect((await rest('GET', path)).body.configs).toEqual([])
    const mismatch = await rest('POST', path, { body: { taskId: 'other', url: 'http://127.0.0.1:9/hook' } })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.error.details[0].fieldViolations[0].field).toBe('taskId')
  })

  it('GET /extendedAgentCard is 400 EXTENDED_AGENT_CARD_NOT_CONFIGURED when none is configured', async () => {
    expect((await rest('GET', '/extendedAgentCard')).body).toEqual(status(400, 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'))
  })

  it('takes a tenant path segment before a route, as the official client sends it', async () => {
    const { task } = await send('hi', { skill: 'echo' })
    expect((await rest('GET', `/acme/tasks/${task.id}`, { type: 'Task' })).body.id).toBe(task.id)
  })

  it('answers an unknown route 404 and a known path with the wrong verb 405 with Allow', async () => {
    expect((await rest('GET', '/nothing/here/at/all')).body).toEqual(status(404, 'NOT_FOUND'))
    const wrongVerb = await rest('DELETE', '/tasks')
    expect(wrongVerb.status).toBe(405)
    expect(wrongVerb.headers.get('allow')).toBe('GET')
    expect((await rest('GET', '/message:send')).status).toBe(405)
    expect((await rest('GET', '/tasks/x:cancel')).headers.get('allow')).toBe('POST')
  })

  it('needs A2A-Version like JSON-RPC, as 400 VERSION_NOT_SUPPORTED', async () => {
    const reply = await rest('GET', '/tasks', { headers: { 'A2A-Version': '' } })
    expect(reply.body).toEqual(status(400, 'UNIMPLEMENTED', 'VERSION_NOT_SUPPORTED'))
    expect((await rest('GET', '/tasks?A2A-Version=1.0', { headers: { 'A2A-Version': '' } })).status).toBe(200)
  })
})

describe('HTTP+JSON streaming', () => {
  const stream = (path: string, body: unknown = {}) => openSse(`${base}${path}`, JSON.stringify(body), HEADERS)

  it('POST /message:stream answers SSE whose events are bare StreamResponse objects', async () => {
    const reply = await stream('/message:stream', { message: userMessage('hi', { skill: 'echo' }) })
    expect(reply.headers.get('content-type')).toBe('text/event-stream')
    const events = (await reply.ended).map((e) => assertWire('StreamResponse', e.data))
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate'])
    expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('answers a direct reply as one message event', async () => {
    const events = await (await stream('/message:stream', { message: userMessage('ping', { skill: 'reply' }) })).ended
    expect(events.map((e) => assertWire('StreamResponse', e.data))).toEqual([{ message: expect.objectContaining({ parts: [{ text: 're: ping' }] }) }])
  })

  it('POST /tasks/{id}:subscribe follows a running task; a terminal one is 400 UNSUPPORTED_OPERATION', async () => {
    hold = gate()
    const { task } = (await rest('POST', '/message:send', { body: { message: userMessage('x', { skill: 'slow' }), configuration: { returnImmediately: true } } })).body
    const reply = await openSse(`${base}/tasks/${task.id}:subscribe`, '', HEADERS)
    expect(assertWire('StreamResponse', (await reply.next())!.data).task.id).toBe(task.id)
    hold.open()
    const events = (await reply.ended).map((e) => assertWire('StreamResponse', e.data))
    expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
    const late = await openSse(`${base}/tasks/${task.id}:subscribe`, '', HEADERS)
    expect(late.status).toBe(400)
    expect(late.body).toEqual(status(400, 'UNIMPLEMENTED', 'UNSUPPORTED_OPERATION'))
  })

  it('ends a stream cut short with an error event carrying a google.rpc.Status', async () => {
    const evicting = await startTestServer({ skills: [slow], maxStreamSeatsPerOwner: 1, streamSeatOverflow: 'evict-oldest' })
    try {
      hold = gate()
      const open = () => openSse(`${evicting.url}/a2a/rest/message:stream`, JSON.stringify({ message: userMessage('x', { skill: 'slow' }) }), HEADERS)
      const first = await open()
      expect((await first.next())!.data.task).toBeDefined()
      const second = await open()
      const events = await first.ended
      expect(events.at(-1)).toMatchObject({ event: 'error', data: status(400, 'UNIMPLEMENTED', 'UNSUPPORTED_OPERATION') })
      second.close()
    } finally {
      hold.open()
      await evicting.close()
    }
  })

  it('takes GET on :subscribe too, for EventSource clients', async () => {
    hold = gate()
    const { task } = (await rest('POST', '/message:send', { body: { message: userMessage('x', { skill: 'slow' }), configuration: { returnImmediately: true } } })).body
    const controller = new AbortController()
    const response = await fetch(`${base}/tasks/${task.id}:subscribe`, { headers: HEADERS, signal: controller.signal })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    controller.abort()
    hold.open()
  })

  it('answers a refusal before the stream opens as a JSON error', async () => {
    const reply = await stream('/message:stream', { message: { ...userMessage('x'), parts: [] } })
    expect(reply.status).toBe(400)
    expect(reply.body.error.details[0].fieldViolations[0].field).toBe('message.parts')
  })
})

describe('bindings on the card', () => {
  it('lists JSON-RPC and HTTP+JSON in supportedInterfaces', async () => {
    const card = assertWire('AgentCard', (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as any)
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ])
  })

  /** Starts a server with `options`, runs `check` on it, and closes it. */
  const withServer = async (options: Record<string, unknown>, check: (other: TestServer) => Promise<void>) => {
    const other = await startTestServer({ skills: [echo], ...options })
    try {
      await check(other)
    } finally {
      await other.close()
    }
  }
  const bindingsOf = async (other: TestServer) => ((await (await fetch(`${other.url}/.well-known/agent-card.json`)).json()) as any).supportedInterfaces

  it('turns the HTTP+JSON binding off, and its routes with it', async () => {
    await withServer({ rest: false }, async (other) => {
      expect((await bindingsOf(other)).map((i: any) => i.protocolBinding)).toEqual(['JSONRPC'])
      expect((await fetch(`${other.url}/a2a/rest/tasks`, { headers: HEADERS })).status).toBe(404)
    })
  })

  it('turns the JSON-RPC binding off, and serves HTTP+JSON at a path of its own', async () => {
    await withServer({ jsonRpc: false, rest: { path: '/api' } }, async (other) => {
      expect(await bindingsOf(other)).toEqual([{ url: `${other.url}/api`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }])
      expect((await fetch(`${other.url}/a2a`, { method: 'POST', body: '{}', headers: HEADERS })).status).toBe(404)
      expect((await fetch(`${other.url}/api/tasks`, { headers: HEADERS })).status).toBe(200)
    })
  })

  it('refuses to serve no binding at all', async () => {
    await expect(startTestServer({ skills: [echo], jsonRpc: false, rest: false })).rejects.toThrow('both off')
  })
})
