import { status as GrpcStatus } from '@grpc/grpc-js'
import { afterEach, describe, expect, it } from 'vitest'
import type { BindingClient } from '../testing/binding-client.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'
import { createAgentHost } from '../agents/agent-host.js'
import { tokenResolver } from '../testing/test-server.js'
import { grpcBindingClient } from '../testing/grpc-client.js'
import { serveGrpc } from './serve-grpc.js'
import { echo, hold } from './__fixture__/skills.js'

let server: TestServer | undefined
let client: BindingClient
const start = async (options: Partial<TestServerOptions> = {}) => {
  server = await startTestServer({ skills: [echo, hold], grpc: true, ...options })
  client = server.client('GRPC', wireCheck)
}
afterEach(async () => {
  await server?.close()
  server = undefined
})

const send = (text: string, extra: Record<string, unknown> = {}, options = {}) => client.call('SendMessage', { message: userMessage(text, extra) }, options)

describe('the gRPC binding behind the exchange gate', () => {
  it('refuses a call without credentials as UNAUTHENTICATED, naming the authorization metadata', async () => {
    await start()
    const reply = await send('hi', {}, { token: '' })
    expect(reply.status).toBe(GrpcStatus.UNAUTHENTICATED)
    expect(reply.error?.message).toMatch(/authorization/)
    // Nothing was written: alice has no task.
    expect((await client.result('ListTasks', {})).totalSize).toBe(0)
  })

  it('refuses a missing or foreign a2a-version as UNIMPLEMENTED with the VERSION_NOT_SUPPORTED ErrorInfo, and takes 1.x', async () => {
    await start()
    for (const version of ['', '0.3', '2.0']) {
      const reply = await send('hi', {}, { headers: { 'a2a-version': version } })
      expect(reply.status).toBe(GrpcStatus.UNIMPLEMENTED)
      expect(reply.error?.reason).toBe('VERSION_NOT_SUPPORTED')
      expect(reply.body.error.details[0]).toMatchObject({ domain: 'a2a-protocol.org', metadata: { supported: '1.0' } })
    }
    expect((await send('hi', { skill: 'echo' }, { headers: { 'a2a-version': '1.1' } })).result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('reads a request without a2a-version as 1.0 when the agent assumes it', async () => {
    await start({ assumeVersionWhenAbsent: '1.0' })
    expect((await send('hi', { skill: 'echo' }, { headers: { 'a2a-version': '' } })).status).toBe(GrpcStatus.OK)
  })

  it("answers another owner's task exactly as an unknown id: NOT_FOUND, the same details but for the id", async () => {
    await start()
    const bobs = (await client.result('SendMessage', { message: userMessage('mine', { skill: 'echo' }) }, { token: 'bob' })).task.id as string
    for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask']) {
      const probe = method === 'SubscribeToTask' ? await client.stream(method, { id: bobs }) : await client.call(method, { id: bobs })
      const unknown = method === 'SubscribeToTask' ? await client.stream(method, { id: `${bobs}x` }) : await client.call(method, { id: `${bobs}x` })
      expect(probe.status).toBe(GrpcStatus.NOT_FOUND)
      expect(probe.status).toBe(unknown.status)
      expect(JSON.stringify(probe.body.error)).toBe(JSON.stringify(unknown.body.error).replaceAll(`${bobs}x`, bobs))
    }
  })

  it('names the invalid field of a request: INVALID_ARGUMENT with BadRequest field violations', async () => {
    await start()
    const reply = await client.call('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [] } })
    expect(reply.status).toBe(GrpcStatus.INVALID_ARGUMENT)
    expect(reply.error?.fields).toContain('message.parts')
    expect(reply.error?.message).not.toMatch(/params\./)
  })

  it('answers bytes that are not a SendMessageRequest as INVALID_ARGUMENT, not INTERNAL', async () => {
    await start()
    // Field 1 with wire type 7, which protobuf does not have.
    const reply = await client.sendRaw(Buffer.from([0x0f]))
    expect(reply.status).toBe(GrpcStatus.INVALID_ARGUMENT)
    expect(reply.error?.message).toMatch(/SendMessageRequest did not decode/)
  })

  it('requires the extensions the card marks required, and echoes the activated ones in a2a-extensions metadata', async () => {
    const uri = 'https://example.com/ext/v1'
    await start({ extensions: [{ uri, required: true }] })
    const refused = await send('hi', { skill: 'echo' })
    expect(refused.status).toBe(GrpcStatus.FAILED_PRECONDITION)
    expect(refused.error?.reason).toBe('EXTENSION_SUPPORT_REQUIRED')
    const admitted = await send('hi', { skill: 'echo' }, { headers: { 'a2a-extensions': uri } })
    expect(admitted.status).toBe(GrpcStatus.OK)
    expect(admitted.headers.get('a2a-extensions')).toBe(uri)
  })

  it('streams SendStreamingMessage to its final state, each event a StreamResponse the schema accepts', async () => {
    await start()
    const stream = await client.stream('SendStreamingMessage', { message: userMessage('streamed', { skill: 'echo' }) })
    const events = (await stream.ended).map((event) => client.eventResult(event))
    expect(events.map((event) => Object.keys(event)[0])).toEqual(['task', 'statusUpdate'])
    expect(events[0].task.status.state).toBe('TASK_STATE_SUBMITTED')
    expect(events[1].statusUpdate.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'streamed' }] } })
  })

  it('holds the stream seat cap: past it a stream is RESOURCE_EXHAUSTED, and a canceled stream gives its seat back', async () => {
    await start({ maxStreamSeatsPerOwner: 1 })
    const task = (await client.result('SendMessage', { message: userMessage('wait', { skill: 'hold' }), configuration: { returnImmediately: true } })).task
    const first = await client.stream('SubscribeToTask', { id: task.id })
    expect(client.eventResult((await first.next())!).task.id).toBe(task.id)
    const second = await client.stream('SubscribeToTask', { id: task.id })
    expect(second.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED)
    expect(second.body.error.message).toMatch(/Too many concurrent streams/)
    first.close()
    await first.ended
    await expect.poll(async () => (await client.stream('SubscribeToTask', { id: task.id })).status).toBe(GrpcStatus.OK)
    await client.result('CancelTask', { id: task.id })
  })

  it('answers the methods of a capability that is off as the specification has them', async () => {
    await start({ streaming: false, pushNotifications: false })
    const stream = await client.stream('SendStreamingMessage', { message: userMessage('x', { skill: 'echo' }) })
    expect(stream.status).toBe(GrpcStatus.UNIMPLEMENTED)
    const push = await client.call('ListTaskPushNotificationConfigs', { taskId: 'any' })
    expect([push.status, push.error?.reason]).toEqual([GrpcStatus.UNIMPLEMENTED, 'PUSH_NOTIFICATION_NOT_SUPPORTED'])
    const card = await client.call('GetExtendedAgentCard', {})
    expect([card.status, card.error?.reason]).toEqual([GrpcStatus.FAILED_PRECONDITION, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'])
  })
})

describe('serveGrpc', () => {
  it('lists the GRPC interface on the card while it serves, at the host the card was fetched at', async () => {
    server = await startTestServer({ skills: [echo] })
    const binding = await serveGrpc(server.exchange, { port: 0, host: '127.0.0.1' })
    const card: any = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()
    expect(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC'])
    expect(card.supportedInterfaces[2]).toEqual({ url: `127.0.0.1:${binding.port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' })
    wireCheck.result('GetExtendedAgentCard', card)
    await binding.close()
    const after: any = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()
    expect(after.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON'])
  })

  it('lists the url it is given, and refuses a port that is not one', async () => {
    server = await startTestServer({ skills: [echo] })
    const binding = await serveGrpc(server.exchange, { port: 0, host: '127.0.0.1', url: 'agent.example.com:443' })
    expect(server.exchange.agentCard('http://127.0.0.1').supportedInterfaces.at(-1)?.url).toBe('agent.example.com:443')
    await binding.close()
    await expect(serveGrpc(server.exchange, { port: 70000 })).rejects.toThrow(/not a port number/)
  })
})

describe('serveGrpc on an AgentHost', () => {
  it("serves the agent it names, behind the host's canUse, with that agent's tasks only", async () => {
    const host = createAgentHost({
      agents: ['a', 'b'].map((id) => ({ id, skills: [echo], card: { name: `Agent ${id}`, description: id, version: '0.0.0' } })),
      resolvePrincipal: tokenResolver({ alice: { owner: 'alice' }, bob: { owner: 'bob' } }),
      canUse: (principal, id) => principal.owner === 'alice' || id === 'b',
    })
    await expect(serveGrpc(host, { port: 0 })).rejects.toThrow(/agent: '<id>' \}, one of a, b/)
    const [a, b] = await Promise.all(['a', 'b'].map((agent) => serveGrpc(host, { port: 0, host: '127.0.0.1', agent })))
    const onA = grpcBindingClient(`127.0.0.1:${a!.port}`, 'alice', wireCheck)
    const onB = grpcBindingClient(`127.0.0.1:${b!.port}`, 'alice', wireCheck)
    try {
      const made = (await onA.result('SendMessage', { message: userMessage('hi', { skill: 'echo' }) })).task.id
      expect((await onA.result('GetTask', { id: made })).id).toBe(made)
      expect((await onB.call('GetTask', { id: made })).error?.reason).toBe('TASK_NOT_FOUND')
      const refused = await onA.call('ListTasks', {}, { token: 'bob' })
      expect(refused.status).toBe(GrpcStatus.NOT_FOUND)
      expect((await onB.call('ListTasks', {}, { token: 'bob' })).status).toBe(GrpcStatus.OK)
      expect(host.agent('a')!.agentCard('http://127.0.0.1').supportedInterfaces.at(-1)).toMatchObject({ protocolBinding: 'GRPC', url: `127.0.0.1:${a!.port}` })
    } finally {
      onA.close()
      onB.close()
      await Promise.all([a!.close(), b!.close()])
      await host.shutdown({ timeoutMs: 1000 })
    }
  })
})
