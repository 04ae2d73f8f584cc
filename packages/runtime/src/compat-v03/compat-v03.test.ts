/**
 * A2A 0.3 over raw HTTP against a listening server with `compat: { v03: true }`: every answer is
 * checked against the official v0.3.0 JSON Schema (whole JSON-RPC envelopes), and the same tasks
 * are read over 1.0 (checked against the v1.0.0 schema). With compat off, 0.3 stays refused.
 */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentHost } from '../agents/agent-host.js'
import { createHttpServer } from '../http/http-server.js'
import { mounted } from '../testing/mount.js'
import { tokenResolver } from '../testing/test-server.js'
import { defineSkill } from '../skills/skill.js'
import { openSse } from '../testing/sse-client.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'
import { assertWire, wireCheck } from '../testing/wire-schema.js'
import { assertV03Response, assertWireV03 } from '../testing/wire-schema-v03.js'
import { ask, work } from './__fixture__/skills.js'

/** Sends the message's parts back as an artifact: the part forms travel both ways. */
const copy = defineSkill({
  id: 'copy',
  description: 'copies the parts',
  handler: async (ctx) => {
    await ctx.artifact({ name: 'copy', parts: ctx.message.parts })
  },
})

/** Answers with a direct message, no task. */
const hello = defineSkill({ id: 'hello', description: 'says hello', handler: (ctx) => ctx.reply('hello') })

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const start = async (options: Partial<TestServerOptions> = {}) =>
  (server = await startTestServer({ skills: [work, ask, copy, hello], compat: { v03: true }, allowPrivatePush: true, check: wireCheck, extendedCard: () => [], ...options }))

let counter = 0
/** A 0.3 user message: kind, lowercase role, kind-tagged parts. */
const message03 = (text: string, skill: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: `v03-${process.pid}-${++counter}`,
  role: 'user',
  parts: [{ kind: 'text', text }],
  metadata: { skill },
  ...extra,
})

/** A 0.3 request as 0.3 clients send it: no A2A-Version header. The answer is checked against the 0.3 schema. */
async function call03(method: string, params: unknown, options: Call03Options = {}) {
  const response = await fetch(`${server!.url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${options.token ?? 'alice'}`, ...options.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++counter, method, params }),
  })
  const body: any = await response.json()
  return { status: response.status, headers: response.headers, body: assertV03Response(method, body) }
}

interface Call03Options {
  token?: string
  headers?: Record<string, string>
}

const result03 = async (method: string, params: unknown, options?: Call03Options) => {
  const { body } = await call03(method, params, options)
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result
}

/** A 0.3 streaming call; every event checked against the 0.3 schema. */
async function stream03(method: string, params: unknown, token = 'alice') {
  const reply = await openSse(`${server!.url}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: ++counter, method, params }), { Authorization: `Bearer ${token}` })
  return { reply, events: async () => (await reply.ended).map((event) => assertV03Response<any>(method, event.data).result) }
}

describe('A2A 0.3 compatibility (compat.v03)', () => {
  it('answers message/send without A2A-Version in 0.3 shapes: kind, lowercase states, kind-tagged parts', async () => {
    await start()
    const task = await result03('message/send', { message: message03('go', 'work') })
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' }, artifacts: [{ name: 'out', parts: [{ kind: 'text', text: 'done' }] }] })
    expect(task.history[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'go' }] })
  })

  it('answers a direct reply as a 0.3 Message, over message/send and message/stream', async () => {
    await start()
    expect(await result03('message/send', { message: message03('hi', 'hello') })).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'hello' }] })
    const events = await (await stream03('message/stream', { message: message03('hi', 'hello') })).events()
    expect(events).toEqual([expect.objectContaining({ kind: 'message', role: 'agent' })])
  })

  it('carries file parts (bytes and uri) in, and back out as 0.3 file parts', async () => {
    await start({ acceptUrlParts: true })
    const parts = [
      { kind: 'file', file: { bytes: Buffer.from('hello').toString('base64'), mimeType: 'text/plain', name: 'a.txt' } },
      { kind: 'file', file: { uri: 'https://files.example/b.pdf', mimeType: 'application/pdf' } },
      { kind: 'data', data: { n: 1 } },
    ]
    const task = await result03('message/send', { message: message03('', 'copy', { parts }) })
    expect(task.artifacts[0].parts).toEqual(parts)
    // The same task over 1.0: raw, url and data parts, checked against the 1.0 schema.
    const same = await server!.result('GetTask', { id: task.id })
    expect(same.artifacts[0].parts).toEqual([
      { raw: Buffer.from('hello').toString('base64'), mediaType: 'text/plain', filename: 'a.txt' },
      { url: 'https://files.example/b.pdf', mediaType: 'application/pdf' },
      { data: { n: 1 } },
    ])
  })

  it('streams message/stream as 0.3 events, the last status update final, and stops at input-required', async () => {
    await start()
    const { events } = await stream03('message/stream', { message: message03('go', 'work') })
    const got = await events()
    expect(got.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update'])
    expect(got.at(-1)).toMatchObject({ status: { state: 'completed' }, final: true })
    expect(got[1]).toMatchObject({ status: { state: 'working' }, final: false })
    const asked = await (await stream03('message/stream', { message: message03('?', 'ask') })).events()
    expect(asked.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'input-required' }, final: true })
  })

  it('serves one task to both generations: started over 0.3, answered over 1.0, read over 0.3', async () => {
    await start()
    const asked = await result03('message/send', { message: message03('?', 'ask') })
    expect(asked.status.state).toBe('input-required')
    const v1 = await server!.result('GetTask', { id: asked.id })
    expect(v1.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    const answered = await server!.result('SendMessage', { message: userMessage('blue', { taskId: asked.id }) })
    expect(answered.task.status.state).toBe('TASK_STATE_COMPLETED')
    const read = await result03('tasks/get', { id: asked.id, historyLength: 10 })
    expect(read).toMatchObject({ kind: 'task', id: asked.id, contextId: asked.contextId, status: { state: 'completed', message: { kind: 'message', role: 'agent' } } })
    expect(read.history.map((m: any) => m.role)).toEqual(['user', 'agent', 'user', 'agent'])
  })

  it('keeps messageId idempotency across generations: a 0.3 retry of a 1.0 send is the same task', async () => {
    await start()
    const sent = userMessage('go', { skill: 'work' })
    const first = await server!.result('SendMessage', { message: sent })
    const retry = await result03('message/send', { message: { ...message03('go', 'work'), messageId: sent.messageId } })
    expect(retry.id).toBe(first.task.id)
  })

  it('blocking: false returns at once (1.0 returnImmediately)', async () => {
    await start()
    const task = await result03('message/send', { message: message03('?', 'ask'), configuration: { blocking: false } })
    expect(['submitted', 'working', 'input-required']).toContain(task.status.state)
  })

  it('cancels and resubscribes over 0.3; resubscribe stays open through input-required and ends final at canceled', async () => {
    await start()
    const asked = await result03('message/send', { message: message03('?', 'ask') })
    const { reply, events } = await stream03('tasks/resubscribe', { id: asked.id })
    const first = await reply.next()
    expect(assertV03Response('tasks/resubscribe', first!.data).result).toMatchObject({ kind: 'task', status: { state: 'input-required' } })
    const canceled = await result03('tasks/cancel', { id: asked.id })
    expect(canceled).toMatchObject({ kind: 'task', status: { state: 'canceled' } })
    const got = await events()
    expect(got.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'canceled' }, final: true })
  })

  it('serves the push config family in 0.3 shapes', async () => {
    await start()
    const asked = await result03('message/send', { message: message03('?', 'ask') })
    const config = { url: 'http://127.0.0.1:9/hook', token: 't', authentication: { schemes: ['Bearer'], credentials: 'c' } }
    const set = await result03('tasks/pushNotificationConfig/set', { taskId: asked.id, pushNotificationConfig: config })
    expect(set).toMatchObject({ taskId: asked.id, pushNotificationConfig: { ...config, id: expect.any(String) } })
    const id = set.pushNotificationConfig.id
    expect(await result03('tasks/pushNotificationConfig/get', { id: asked.id, pushNotificationConfigId: id })).toEqual(set)
    // 0.3 allowed the task id alone: the task's only config.
    expect(await result03('tasks/pushNotificationConfig/get', { id: asked.id })).toEqual(set)
    expect(await result03('tasks/pushNotificationConfig/list', { id: asked.id })).toEqual([set])
    // The same config over 1.0, flat.
    const v1 = await server!.result('ListTaskPushNotificationConfigs', { taskId: asked.id })
    expect(v1.configs[0]).toMatchObject({ id, taskId: asked.id, url: config.url, authentication: { scheme: 'Bearer' } })
    expect(await result03('tasks/pushNotificationConfig/delete', { id: asked.id, pushNotificationConfigId: id })).toBeNull()
    expect(await result03('tasks/pushNotificationConfig/list', { id: asked.id })).toEqual([])
    const twoSchemes = await call03('tasks/pushNotificationConfig/set', {
      taskId: asked.id,
      pushNotificationConfig: { ...config, authentication: { schemes: ['Bearer', 'Basic'] } },
    })
    expect(twoSchemes.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('pushNotificationConfig.authentication.schemes') })
  })

  it('answers agent/getAuthenticatedExtendedCard with a 0.3 card', async () => {
    await start()
    const card = await result03('agent/getAuthenticatedExtendedCard', undefined)
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${server!.url}/a2a`, preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: true })
  })

  it("hides another owner's task over 0.3 as over 1.0", async () => {
    await start()
    const asked = await result03('message/send', { message: message03('?', 'ask') })
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const { body } = await call03(method, { id: asked.id }, { token: 'bob' })
      expect(body.error).toMatchObject({ code: -32001 })
    }
    const { body } = await call03('tasks/pushNotificationConfig/list', { id: asked.id }, { token: 'bob' })
    expect(body.error).toMatchObject({ code: -32001 })
    const resubscribe = await openSse(`${server!.url}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: asked.id } }), {
      Authorization: 'Bearer bob',
    })
    // As 0.3 clients read a streaming method's error: the one event of an SSE answer.
    const [event] = await resubscribe.ended
    expect(resubscribe.headers.get('content-type')).toBe('text/event-stream')
    expect(assertV03Response('tasks/resubscribe', event!.data).error).toMatchObject({ code: -32001 })
  })

  it('names what is wrong in a 0.3 request, and what to send instead', async () => {
    await start()
    const noKind = await call03('message/send', { message: { ...message03('x', 'work'), parts: [{ text: 'x' }] } })
    expect(noKind.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/message\.parts\[0\]\.kind.*"text", "file" or "data"/) })
    const role = await call03('message/send', { message: { ...message03('x', 'work'), role: 'ROLE_USER' } })
    expect(role.body.error.message).toMatch(/message\.role.*"user" or "agent"/)
    // A 1.0 method name without A2A-Version: the header to send.
    const v1Name = await call03('SendMessage', { message: userMessage('x') })
    expect(v1Name.body.error).toMatchObject({ code: -32601, message: expect.stringContaining('A2A-Version: 1.0') })
    // With A2A-Version: 1.0 the 0.3 names stay unknown, as without compat.
    const v03Name = await call03('message/send', { message: message03('x', 'work') }, { headers: { 'A2A-Version': '1.0' } })
    expect(v03Name.body.error).toMatchObject({ code: -32601 })
  })

  it('serves the 0.3 card at /.well-known/agent.json and to header-less readers of the card path; 1.0 readers get the 1.0 card listing the 0.3 interface', async () => {
    await start()
    const legacy = await fetch(`${server!.url}/.well-known/agent.json`)
    expect(legacy.status).toBe(200)
    const card = assertWireV03('AgentCard', await legacy.json())
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      url: `${server!.url}/a2a`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: `${server!.url}/a2a`, transport: 'JSONRPC' }],
      capabilities: { streaming: true, pushNotifications: true },
    })
    const headerless = await fetch(`${server!.url}/.well-known/agent-card.json`)
    expect(await headerless.json()).toEqual(card)
    expect(headerless.headers.get('vary')).toContain('A2A-Version')
    const v1 = await fetch(`${server!.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    const v1Card: any = assertWire('AgentCard', await v1.json())
    expect(v1Card.supportedInterfaces).toContainEqual({ url: `${server!.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' })
    expect(v1Card.supportedInterfaces[0]!.protocolVersion).toBe('1.0')
  })

  it('off by default: a 0.3 request gets -32009 and /.well-known/agent.json is 404', async () => {
    server = await startTestServer({ skills: [work] })
    const { body } = await call03('message/send', { message: message03('go', 'work') })
    expect(body.error).toMatchObject({ code: -32009, message: expect.stringContaining('A2A-Version: 1.0') })
    expect((await fetch(`${server.url}/.well-known/agent.json`)).status).toBe(404)
    const card: any = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()
    expect(card.supportedInterfaces.map((face: any) => face.protocolVersion)).toEqual(['1.0', '1.0'])
  })

  it('holds 0.3 requests to the same limits and seats', async () => {
    await start({ requestLimits: { maxPartsPerMessage: 2 }, maxStreamSeatsPerOwner: 1 })
    const parts = [1, 2, 3].map((n) => ({ kind: 'text', text: String(n) }))
    const many = await call03('message/send', { message: message03('', 'work', { parts }) })
    expect(many.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('maxPartsPerMessage') })
    const asked = await result03('message/send', { message: message03('?', 'ask') })
    const { reply } = await stream03('tasks/resubscribe', { id: asked.id })
    await reply.next()
    const second = await openSse(`${server!.url}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: asked.id } }), {
      Authorization: 'Bearer alice',
    })
    expect(second.status).toBe(429)
    reply.close()
  })

  it('negotiates extensions from X-A2A-Extensions, the 0.3 header, refusing a missing required one on unary and streaming calls alike', async () => {
    const uri = 'https://extensions.example/trace/v1'
    await start({ extensions: [{ uri, required: true }] })
    const missing = await call03('message/send', { message: message03('go', 'work') })
    expect(missing.body.error).toMatchObject({ code: -32008, message: expect.stringContaining(uri) })
    const stream = await openSse(`${server!.url}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: message03('go', 'work') } }), {
      Authorization: 'Bearer alice',
    })
    expect(assertV03Response<any>('message/stream', (await stream.ended)[0]!.data).error).toMatchObject({ code: -32008 })
    const sent = await call03('message/send', { message: message03('go', 'work') }, { headers: { 'X-A2A-Extensions': uri } })
    expect(sent.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } })
    expect(sent.headers.get('x-a2a-extensions')).toBe(uri)
  })

  it('reads A2A-Version: 0.3 as 0.3, and header-less 1.0 method names as 1.0 when the app assumes 1.0', async () => {
    await start({ assumeVersionWhenAbsent: '1.0' })
    const explicit = await result03('message/send', { message: message03('go', 'work') }, { headers: { 'A2A-Version': '0.3' } })
    expect(explicit).toMatchObject({ kind: 'task', status: { state: 'completed' } })
    expect(await result03('message/send', { message: message03('go', 'work') })).toMatchObject({ kind: 'task' })
    const v1 = await fetch(`${server!.url}/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer alice' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: explicit.id } }),
    })
    expect(assertWire('Task', ((await v1.json()) as any).result)).toMatchObject({ id: explicit.id, status: { state: 'TASK_STATE_COMPLETED' } })
  })

  it('is per agent under an AgentHost: the opted-in agent serves 0.3 at its path and its agent.json, the other still refuses', async () => {
    const host = createAgentHost({
      resolvePrincipal: tokenResolver({ alice: { owner: 'alice' }, bob: { owner: 'bob' } }),
      agents: [
        { id: 'old', skills: [work], compat: { v03: true }, card: { name: 'Old friends', description: 'speaks 0.3 too', version: '1.0.0' } },
        { id: 'new', skills: [work], card: { name: 'New only', description: 'speaks 1.0', version: '1.0.0' } },
      ],
    })
    const http = createHttpServer(mounted(host, express())).listen(0, '127.0.0.1')
    await once(http, 'listening')
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    try {
      const send = async (agent: string, token = 'alice') => {
        const response = await fetch(`${url}/a2a/${agent}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03('go', 'work') } }),
        })
        return assertV03Response('message/send', (await response.json()) as any)
      }
      const task = (await send('old')).result
      expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } })
      expect((await send('new')).error).toMatchObject({ code: -32009 })
      const card = await fetch(`${url}/a2a/old/.well-known/agent.json`)
      expect(assertWireV03('AgentCard', (await card.json()) as any)).toMatchObject({ name: 'Old friends', url: `${url}/a2a/old` })
      // Not a card of the other agent: to a caller 404, to an anonymous one 401 as any other path of the host.
      expect((await fetch(`${url}/a2a/new/.well-known/agent.json`, { headers: { Authorization: 'Bearer alice' } })).status).toBe(404)
      expect((await fetch(`${url}/a2a/new/.well-known/agent.json`)).status).toBe(401)
      // The old agent's task is not the new agent's, nor bob's.
      const get = async (agent: string, token: string) =>
        (await fetch(`${url}/a2a/${agent}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'A2A-Version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }),
        }).then((response) => response.json())) as any
      expect((await get('new', 'alice')).error).toMatchObject({ code: -32001 })
      expect((await get('old', 'bob')).error).toMatchObject({ code: -32001 })
      expect((await get('old', 'alice')).result).toMatchObject({ id: task.id })
    } finally {
      await host.shutdown({ timeoutMs: 1000 })
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  })

  it('needs the JSON-RPC binding', async () => {
    await expect(startTestServer({ skills: [work], compat: { v03: true }, jsonRpc: false })).rejects.toThrow(/compat\.v03.*JSON-RPC/)
  })
})
