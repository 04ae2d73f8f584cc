/**
 * Interop: the official `@a2a-js/sdk` client against the quickstart agent over real HTTP, once
 * over each binding the card lists (JSON-RPC, HTTP+JSON through the SDK's REST transport, and gRPC
 * through its grpc-js transport, on the port serveGrpc listens on).
 * The SDK is an independent v1.0 implementation, so whatever it accepts is evidence our wire
 * shapes (card, ProtoJSON results, routes, error codes and bodies) match the spec as others read it.
 */
import type { AddressInfo } from 'node:net'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk'
import type { SendMessageResult } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client'
import type { Client } from '@a2a-js/sdk/client'
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc'
import { A2A_ERROR_CODE, JsonRpcTaskNotCancelableError, JsonRpcTaskNotFoundError, RestTaskNotCancelableError, RestTaskNotFoundError } from '@a2a-js/sdk/errors'
import { GrpcTaskNotCancelableError, GrpcTaskNotFoundError, isGrpcError } from '@a2a-js/sdk/errors/grpc'
import { InterceptingCall, status as GrpcStatus, type Interceptor } from '@grpc/grpc-js'
import { devKeyResolver, type Exchange } from '@a2a-agent/runtime'
import { serveGrpc, type GrpcBinding } from '@a2a-agent/runtime/grpc'
import { createQuickstart } from '../examples/quickstart/src/agent.js'

let server: Server
let exchange: Exchange
let grpc: GrpcBinding
let baseUrl: string

/** The card's bindings, each with the typed errors its SDK transport raises. */
const PROTOCOLS = [
  { protocol: 'JSONRPC', notFound: JsonRpcTaskNotFoundError, notCancelable: JsonRpcTaskNotCancelableError, path: '/a2a' },
  { protocol: 'HTTP+JSON', notFound: RestTaskNotFoundError, notCancelable: RestTaskNotCancelableError, path: '/a2a/rest' },
  { protocol: 'GRPC', notFound: GrpcTaskNotFoundError, notCancelable: GrpcTaskNotCancelableError, path: undefined },
] as const

/** gRPC calls carry the key in their `authorization` metadata. */
const bearerMetadata =
  (token: string): Interceptor =>
  (options, next) =>
    new InterceptingCall(next(options), {
      start: (metadata, listener, start) => {
        metadata.set('authorization', `Bearer ${token}`)
        start(metadata, listener)
      },
    })

/** A fetch that authenticates every call (card and JSON-RPC) as the given dev key. */
function bearerFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set('Authorization', `Bearer ${token}`)
    return fetch(input, { ...init, headers })
  }
}

function clientFactory(token: string, protocol: string): ClientFactory {
  const fetchImpl = bearerFetch(token)
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
        new GrpcTransportFactory({ grpcCallOptions: { interceptors: [bearerMetadata(token)] } }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      preferredTransports: [protocol],
    }),
  )
}

let messageCounter = 0

/** A SendMessage request built from its wire (ProtoJSON) shape, as a client author would write it. */
function send(text: string, extra: { skill?: string; taskId?: string; returnImmediately?: boolean } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `interop-${process.pid}-${++messageCounter}`,
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(extra.skill ? { metadata: { skill: extra.skill } } : {}),
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
    },
    ...(extra.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  })
}

function asTask(result: SendMessageResult): Task {
  // Tasks carry a status; a bare Message does not.
  if (!('status' in result)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(result)}`)
  return result
}

/** Wire shape of a task, so assertions read like the spec rather than ts-proto internals. */
const wire = (task: Task): any => Task.toJSON(task)

/** Runs `call`, expecting it to reject; returns the error for typed assertions. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

beforeAll(async () => {
  const quickstart = createQuickstart({ resolvePrincipal: devKeyResolver('alice:key-alice,bob:key-bob') })
  exchange = quickstart.exchange
  server = createServer(quickstart.listener).listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  grpc = await serveGrpc(exchange, { port: 0, host: '127.0.0.1' })
})

afterAll(async () => {
  await grpc?.close({ timeoutMs: 2000 })
  await exchange?.shutdown({ timeoutMs: 2000 })
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
})

describe.each(PROTOCOLS)('@a2a-js/sdk client over $protocol against the quickstart agent', ({ protocol, notFound, notCancelable, path }) => {
  let alice: Client
  let bob: Client
  beforeAll(async () => {
    alice = await clientFactory('key-alice', protocol).createFromUrl(baseUrl)
    bob = await clientFactory('key-bob', protocol).createFromUrl(baseUrl)
  })

  it(`resolves the card and picks the ${protocol} interface`, async () => {
    expect(alice.transport.protocolName).toBe(protocol)
    expect(alice.protocolVersion).toBe('1.0')
    const card = await alice.getAgentCard()
    expect(card.name).toBe('Quickstart agent')
    const url = path === undefined ? `127.0.0.1:${grpc.port}` : `${baseUrl}${path}`
    expect(card.supportedInterfaces.find((i) => i.protocolBinding === protocol)).toMatchObject({ url, protocolVersion: '1.0' })
    expect(card.skills.map((skill) => skill.id)).toEqual(['echo', 'ask', 'slow', 'fail'])
  })

  let echoed: Task

  it('sendMessage to echo returns a completed task with the echoed artifact', async () => {
    echoed = asTask(await alice.sendMessage(send('hello interop', { skill: 'echo' })))
    const json = wire(echoed)
    expect(json.status.state).toBe('TASK_STATE_COMPLETED')
    expect(json.artifacts).toHaveLength(1)
    expect(json.artifacts[0]).toMatchObject({ name: 'echo', parts: [{ text: 'hello interop', mediaType: 'text/plain' }] })
    expect(json.history?.[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'hello interop' }], taskId: json.id })
  })

  it('getTask returns the same task and listTasks includes it', async () => {
    const got = wire(await alice.getTask(GetTaskRequest.fromJSON({ id: echoed.id })))
    expect(got.id).toBe(echoed.id)
    expect(got.contextId).toBe(echoed.contextId)
    expect(got.status.state).toBe('TASK_STATE_COMPLETED')
    expect(got.artifacts).toEqual(wire(echoed).artifacts)

    const listed = await alice.listTasks(ListTasksRequest.fromJSON({}))
    expect(listed.totalSize).toBeGreaterThanOrEqual(1)
    expect(listed.tasks.map((task) => task.id)).toContain(echoed.id)
  })

  it('cancels a slow task; a second cancel is a typed not-cancelable error', async () => {
    const started = wire(asTask(await alice.sendMessage(send('count', { skill: 'slow', returnImmediately: true }))))
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(started.status.state)

    const canceled = wire(await alice.cancelTask(CancelTaskRequest.fromJSON({ id: started.id })))
    expect(canceled.id).toBe(started.id)
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED')

    const error = await rejection(alice.cancelTask(CancelTaskRequest.fromJSON({ id: started.id })))
    expect(error).toBeInstanceOf(notCancelable)
    if (error instanceof JsonRpcTaskNotCancelableError) expect(error.envelopeCode).toBe(A2A_ERROR_CODE.TASK_NOT_CANCELABLE)
    if (error instanceof RestTaskNotCancelableError) expect(error.statusCode).toBe(409)
    if (isGrpcError(error)) expect(error.status).toBe(GrpcStatus.FAILED_PRECONDITION)
  })

  it('getTask of an unknown id is a typed task-not-found error', async () => {
    const error = await rejection(alice.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })))
    expect(error).toBeInstanceOf(notFound)
    if (error instanceof JsonRpcTaskNotFoundError) expect(error.envelopeCode).toBe(A2A_ERROR_CODE.TASK_NOT_FOUND)
    if (error instanceof RestTaskNotFoundError) expect(error.statusCode).toBe(404)
    if (isGrpcError(error)) expect(error.status).toBe(GrpcStatus.NOT_FOUND)
  })

  it('ask pauses for input, then completes when resumed with the taskId', async () => {
    const asked = wire(asTask(await alice.sendMessage(send('hi', { skill: 'ask' }))))
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED')

    const answered = wire(asTask(await alice.sendMessage(send('Ada', { taskId: asked.id }))))
    expect(answered.id).toBe(asked.id)
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED')
    expect(answered.artifacts).toEqual([expect.objectContaining({ name: 'greeting', parts: [expect.objectContaining({ text: 'Hello, Ada!' })] })])
  })

  it("bob cannot see alice's task", async () => {
    const error = await rejection(bob.getTask(GetTaskRequest.fromJSON({ id: echoed.id })))
    expect(error).toBeInstanceOf(notFound)
  })

  it('sendMessageStream yields the task, then status and artifact updates, and ends at the final state', async () => {
    const events: any[] = []
    for await (const event of alice.sendMessageStream(send('streamed', { skill: 'echo' }))) events.push(StreamResponse.toJSON(event))
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate'])
    expect(events[1].artifactUpdate.artifact.parts[0].text).toBe('streamed')
    expect(events[2].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('resubscribeTask follows a running task from its snapshot to cancel', async () => {
    const started = wire(asTask(await alice.sendMessage(send('count', { skill: 'slow', returnImmediately: true }))))
    const events: any[] = []
    const follow = (async () => {
      for await (const event of alice.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id }))) events.push(StreamResponse.toJSON(event))
    })()
    await expect.poll(() => events.length).toBeGreaterThanOrEqual(1)
    expect(events[0].task.id).toBe(started.id)
    await alice.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }))
    await follow
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_CANCELED')
  })
})

describe.each(PROTOCOLS)('@a2a-js/sdk push-config methods over $protocol against an agent that delivers to a local receiver', ({ protocol }) => {
  let agent: Server
  let agentExchange: Exchange
  let agentGrpc: GrpcBinding
  let receiver: Server
  let hookUrl: string
  let client: Client
  const received: any[] = []

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let text = ''
      request.on('data', (chunk) => (text += chunk))
      request.on('end', () => {
        received.push(JSON.parse(text))
        response.writeHead(200).end()
      })
    }).listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => receiver.once('listening', resolve))
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    // Private targets are allowed only because this receiver listens on loopback.
    const quickstart = createQuickstart({ resolvePrincipal: devKeyResolver('alice:key-alice'), overrides: { allowPrivatePush: true } })
    agentExchange = quickstart.exchange
    agent = createServer(quickstart.listener).listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => agent.once('listening', resolve))
    agentGrpc = await serveGrpc(agentExchange, { port: 0, host: '127.0.0.1' })
    client = await clientFactory('key-alice', protocol).createFromUrl(`http://127.0.0.1:${(agent.address() as AddressInfo).port}`)
  })

  afterAll(async () => {
    await agentGrpc.close({ timeoutMs: 2000 })
    await agentExchange.shutdown({ timeoutMs: 2000 })
    agent.closeAllConnections()
    await new Promise<void>((resolve) => agent.close(() => resolve()))
    await new Promise<void>((resolve) => receiver.close(() => resolve()))
  })

  it("creates, gets, lists and deletes a config, and the receiver gets the task's events", async () => {
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true)
    const asked = wire(asTask(await client.sendMessage(send('hi', { skill: 'ask' }))))
    const created = TaskPushNotificationConfig.toJSON(
      await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: asked.id, id: 'sdk-1', url: hookUrl, token: 'tok' })),
    ) as any
    expect(created).toMatchObject({ id: 'sdk-1', taskId: asked.id, url: hookUrl, token: 'tok' })
    const got = TaskPushNotificationConfig.toJSON(
      await client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: asked.id, id: 'sdk-1' })),
    ) as any
    expect(got.url).toBe(hookUrl)
    const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: asked.id }))
    expect(listed.configs.map((config) => config.id)).toEqual(['sdk-1'])

    await client.sendMessage(send('Ada', { taskId: asked.id }))
    await expect.poll(() => received.at(-1)?.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED')
    expect(received.some((event) => event.artifactUpdate?.artifact?.name === 'greeting')).toBe(true)

    await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: asked.id, id: 'sdk-1' }))
    const after = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: asked.id }))
    expect(after.configs).toEqual([])
  })
})
