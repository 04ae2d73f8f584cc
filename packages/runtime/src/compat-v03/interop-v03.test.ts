/**
 * Interop with the official SDK's 0.3-era client (`a2a-sdk-v03`: @a2a-js/sdk 0.3.14, the last 0.3
 * release) over real HTTP on 127.0.0.1, beside the 1.0 client (@a2a-js/sdk 1.3.0) on the same
 * server and the same tasks. Every response the 0.3 client receives (card, JSON-RPC answers, each
 * stream event) is checked against the official v0.3.0 JSON Schema, and every one the 1.0 client
 * receives against v1.0.0, inside the fetch both clients use.
 */
import { createParser } from 'eventsource-parser'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcTransport as JsonRpcTransport03, type Client as Client03 } from 'a2a-sdk-v03/client'
import type { Task as Task03 } from 'a2a-sdk-v03'
import { CancelTaskRequest, GetTaskRequest, SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { assertWire, wireCheck } from '../testing/wire-schema.js'
import { assertV03Response, assertWireV03 } from '../testing/wire-schema-v03.js'
import { startReceiver } from '../push/__fixture__/receiver.js'
import { bearerFetch, connect03, connect10 } from './__fixture__/clients.js'
import { ask, work } from './__fixture__/skills.js'

/** What each client received, checked as it arrived: the count proves the checks ran. */
const checked = { v03: 0, v10: 0 }
const violations: string[] = []

type Check = (method: string | undefined, payload: any) => void
const check03: Check = (method, payload) => void (method ? assertV03Response(method, payload) : assertWireV03('AgentCard', payload))
const check10: Check = (method, payload) => {
  if (!method) return void assertWire('AgentCard', payload)
  if (payload.error) return
  // A stream's events are StreamResponses; a unary answer is its method's response type.
  if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') wireCheck.event(payload.result)
  else wireCheck.result(method, payload.result)
}

/**
 * A fetch that authenticates as `token` and checks every body it hands the client: a JSON answer
 * whole, a stream event by event on a tee of the body (so the client reads it as it arrives).
 */
function checkingFetch(token: string, generation: keyof typeof checked, check: Check): typeof fetch {
  const record = (method: string | undefined, payload: unknown) => {
    try {
      check(method, payload)
      checked[generation]++
    } catch (error) {
      violations.push(`${generation} ${method ?? 'card'}: ${(error as Error).message}`)
    }
  }
  return bearerFetch(token, async (input, init) => {
    const response = await fetch(input, init)
    const method = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method: string }).method : undefined
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const [mine, theirs] = response.body!.tee()
      const parser = createParser({ onEvent: (event) => record(method, JSON.parse(event.data)) })
      void (async () => {
        const decoder = new TextDecoder()
        for await (const chunk of mine) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
      })().catch(() => {})
      return new Response(theirs, { status: response.status, headers: response.headers })
    }
    const text = await response.text()
    if (response.ok) record(method, JSON.parse(text))
    return new Response(text, { status: response.status, headers: response.headers })
  })
}

const client03 = (baseUrl: string, token: string): Promise<Client03> => connect03(baseUrl, checkingFetch(token, 'v03', check03))
const client10 = (baseUrl: string, token: string): Promise<Client> => connect10(baseUrl, checkingFetch(token, 'v10', check10))

let counter = 0
const send03 = (text: string, extra: { skill?: string; taskId?: string; contextId?: string } = {}) => ({
  message: {
    kind: 'message' as const,
    messageId: `interop-v03-${process.pid}-${++counter}`,
    role: 'user' as const,
    parts: [{ kind: 'text' as const, text }],
    ...(extra.skill ? { metadata: { skill: extra.skill } } : {}),
    ...(extra.taskId ? { taskId: extra.taskId } : {}),
  },
})
const send10 = (text: string, skill: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: `interop-v10-${process.pid}-${++counter}`, role: 'ROLE_USER', parts: [{ text }], metadata: { skill } } })

const asTask03 = (result: unknown): Task03 => {
  if ((result as { kind?: string }).kind !== 'task') throw new Error(`expected a 0.3 Task, got ${JSON.stringify(result)}`)
  return result as Task03
}

/** Collects a stream to its end. */
async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = []
  for await (const event of stream) events.push(event)
  return events
}

let server: TestServer
let alice03: Client03
let bob03: Client03
let alice10: Client

beforeAll(async () => {
  server = await startTestServer({ skills: [work, ask], compat: { v03: true }, allowPrivatePush: true, extendedCard: () => [] })
  alice03 = await client03(server.url, 'alice')
  bob03 = await client03(server.url, 'bob')
  alice10 = await client10(server.url, 'alice')
})

afterAll(async () => {
  await server?.close()
})

afterEach(() => {
  expect(violations).toEqual([])
})

describe('the official 0.3-era client (@a2a-js/sdk 0.3.14) against compat.v03', () => {
  it('reads the 0.3 card from the card path and talks JSON-RPC at its url', async () => {
    const card = await alice03.getAgentCard()
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${server.url}/a2a`, preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: true })
  })

  it('sends and gets a task', async () => {
    const task = asTask03(await alice03.sendMessage(send03('go', { skill: 'work' })))
    expect(task.status.state).toBe('completed')
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'done' }])
    const got = await alice03.getTask({ id: task.id })
    expect(got).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } })
  })

  it('streams a message to its final status update', async () => {
    const events = await drain(alice03.sendMessageStream(send03('go', { skill: 'work' })))
    expect(events.map((event) => event.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update'])
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } })
  })

  it('continues an input-required task, resubscribes to one and cancels it', async () => {
    const asked = asTask03(await alice03.sendMessage(send03('?', { skill: 'ask' })))
    expect(asked.status.state).toBe('input-required')
    const answered = asTask03(await alice03.sendMessage(send03('blue', { taskId: asked.id })))
    expect(answered.status).toMatchObject({ state: 'completed', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'you said blue' }] } })

    const waiting = asTask03(await alice03.sendMessage(send03('?', { skill: 'ask' })))
    const before = checked.v03
    const resubscribed = drain(alice03.resubscribeTask({ id: waiting.id }))
    // The subscription is open once the task's snapshot went out; the cancel then ends it.
    await expect.poll(() => checked.v03).toBeGreaterThan(before)
    const canceled = await alice03.cancelTask({ id: waiting.id })
    expect(canceled).toMatchObject({ kind: 'task', status: { state: 'canceled' } })
    const events = await resubscribed
    expect(events[0]).toMatchObject({ kind: 'task', id: waiting.id })
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } })
  })

  it('sets, gets, lists and deletes push configs', async () => {
    const task = asTask03(await alice03.sendMessage(send03('?', { skill: 'ask' })))
    // Deleted before the task moves again: nothing is delivered to it.
    const config = { id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 'secret' } }
    const set = await alice03.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config })
    expect(set).toEqual({ taskId: task.id, pushNotificationConfig: config })
    expect(await alice03.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' } as never)).toEqual(set)
    expect(await alice03.listTaskPushNotificationConfig({ id: task.id })).toEqual([set])
    await alice03.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' })
    expect(await alice03.listTaskPushNotificationConfig({ id: task.id })).toEqual([])
  })

  it('fetches the authenticated extended card', async () => {
    const fresh = await client03(server.url, 'alice')
    const card = await fresh.getAgentCard()
    expect(card).toMatchObject({ protocolVersion: '0.3.0', name: 'Test agent', url: `${server.url}/a2a` })
  })

  it("does not find another owner's task over 0.3", async () => {
    const task = asTask03(await alice03.sendMessage(send03('?', { skill: 'ask' })))
    for (const call of [bob03.getTask({ id: task.id }), bob03.cancelTask({ id: task.id }), drain(bob03.resubscribeTask({ id: task.id }))]) {
      // The SDK's message for -32001, on the unary calls and the stream's one error event alike.
      await expect(call).rejects.toThrow(/-32001|Task not found/)
    }
    expect((await alice03.getTask({ id: task.id })).status.state).toBe('input-required')
  })
})

describe('push notifications in the generation of the client that set the config', () => {
  it('sends configs the 0.3 client set the 0.3 task after each event, and a 1.0 config on the same task its StreamResponses', async () => {
    const hooks = await startReceiver()
    try {
      const onSend = { id: 'on-send', url: hooks.url('/on-send'), token: 'tok-send' }
      const task = asTask03(await alice03.sendMessage({ ...send03('?', { skill: 'ask' }), configuration: { pushNotificationConfig: onSend } }))
      const set03 = { id: 'set-03', url: hooks.url('/set-03'), token: 'tok-03', authentication: { schemes: ['Bearer'], credentials: 'secret' } }
      await alice03.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: set03 })
      const set10 = { id: 'set-10', taskId: task.id, url: hooks.url('/set-10'), token: 'tok-10' }
      await alice10.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON(set10))
      // Read over 1.0, the configs the 0.3 client set are plain 1.0 configs: their generation stays inside.
      expect(await server.result('ListTaskPushNotificationConfigs', { taskId: task.id })).toEqual({
        configs: [
          { ...onSend, taskId: task.id },
          { id: 'set-03', taskId: task.id, url: set03.url, token: 'tok-03', authentication: { scheme: 'Bearer', credentials: 'secret' } },
          set10,
        ],
        nextPageToken: '',
      })
      expect(await alice03.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'set-03' } as never)).toEqual({ taskId: task.id, pushNotificationConfig: set03 })

      await alice03.sendMessage(send03('blue', { taskId: task.id }))
      const lastOf = (path: string) => hooks.hitsOf(path).at(-1)?.body
      await expect
        .poll(() => [lastOf('/on-send')?.status.state, lastOf('/set-03')?.status.state, lastOf('/set-10')?.statusUpdate?.status.state])
        .toEqual(['completed', 'completed', 'TASK_STATE_COMPLETED'])

      // 0.3: the task, as the official 0.3 senders POST it, valid against the v0.3.0 schema.
      for (const [path, token] of [
        ['/on-send', 'tok-send'],
        ['/set-03', 'tok-03'],
      ] as const) {
        for (const hit of hooks.hitsOf(path)) {
          assertWireV03('Task', hit.body)
          expect(hit.body).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId })
          expect(hit.headers).toMatchObject({ 'content-type': 'application/json', 'x-a2a-notification-token': token })
        }
      }
      // The send's own config hears of the task it made first, before the answer moved it on.
      expect(hooks.hitsOf('/on-send')[0]!.body.status.state).toBe('submitted')
      expect(hooks.hitsOf('/set-03').every((hit) => hit.headers.authorization === 'Bearer secret')).toBe(true)
      expect(lastOf('/set-03').status).toMatchObject({ state: 'completed', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'you said blue' }] } })
      expect(lastOf('/set-03').history.map((message: any) => [message.role, message.parts[0].text])).toEqual([
        ['user', '?'],
        ['agent', 'which one?'],
        ['user', 'blue'],
        ['agent', 'you said blue'],
      ])

      // 1.0: each event as its StreamResponse, valid against the v1.0.0 schema.
      const events = hooks.hitsOf('/set-10')
      for (const hit of events) {
        wireCheck.event(hit.body)
        expect(hit.headers).toMatchObject({ 'content-type': 'application/a2a+json', 'x-a2a-notification-token': 'tok-10' })
      }
      expect(events.map((hit) => Object.keys(hit.body))).toEqual([['statusUpdate'], ['statusUpdate']])
      expect(events[0]!.body.statusUpdate.status.state).toBe('TASK_STATE_WORKING')
    } finally {
      await hooks.close()
    }
  })
})

describe('the 0.3 client against an agent without compat', () => {
  it('is refused with -32009 naming the header to send, and finds no agent.json', async () => {
    const plain = await startTestServer({ skills: [work] })
    try {
      const transport = new JsonRpcTransport03({ endpoint: `${plain.url}/a2a`, fetchImpl: bearerFetch('alice') })
      const refusal = transport.sendMessage(send03('go', { skill: 'work' }))
      await expect(refusal).rejects.toThrow(/A2A-Version: 1\.0.*\(Code: -32009\)/)
      expect((await fetch(`${plain.url}/.well-known/agent.json`)).status).toBe(404)
    } finally {
      await plain.close()
    }
  })
})

describe('one task, two generations', () => {
  it('a task the 0.3 client started is read, subscribed to and canceled by the 1.0 client', async () => {
    const started = asTask03(await alice03.sendMessage(send03('?', { skill: 'ask' })))
    const read = Task.toJSON(await alice10.getTask(GetTaskRequest.fromJSON({ id: started.id }))) as any
    expect(read).toMatchObject({ id: started.id, contextId: started.contextId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } })
    const before = { ...checked }
    const subscribed = drain(alice10.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id })))
    // Meanwhile the 0.3 client follows the same task.
    const followed03 = drain(alice03.resubscribeTask({ id: started.id }))
    // Both streams are open once each sent its snapshot; the cancel then ends both.
    await expect.poll(() => checked.v10 > before.v10 && checked.v03 > before.v03).toBe(true)
    const canceled = Task.toJSON(await alice10.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }))) as any
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED')
    const events = (await subscribed).map((event) => StreamResponse.toJSON(event) as any)
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_CANCELED')
    expect((await followed03).at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } })
    expect(await alice03.getTask({ id: started.id })).toMatchObject({ status: { state: 'canceled' } })
  })

  it('a task the 1.0 client started is read, resubscribed to and canceled by the 0.3 client', async () => {
    const result = await alice10.sendMessage(send10('?', 'ask'))
    const started = Task.toJSON(result as Task) as any
    expect(started.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    const read = await alice03.getTask({ id: started.id })
    expect(read).toMatchObject({ kind: 'task', id: started.id, contextId: started.contextId, status: { state: 'input-required' } })
    expect(read.history?.[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: '?' }] })
    const before = checked.v03
    const resubscribed = drain(alice03.resubscribeTask({ id: started.id }))
    await expect.poll(() => checked.v03).toBeGreaterThan(before)
    expect(await alice03.cancelTask({ id: started.id })).toMatchObject({ kind: 'task', status: { state: 'canceled' } })
    expect((await resubscribed).at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } })
    const after = Task.toJSON(await alice10.getTask(GetTaskRequest.fromJSON({ id: started.id }))) as any
    expect(after.status.state).toBe('TASK_STATE_CANCELED')
  })

  it('checked every payload both clients received', () => {
    expect(checked.v03).toBeGreaterThan(20)
    expect(checked.v10).toBeGreaterThan(5)
  })
})
