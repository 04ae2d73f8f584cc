/**
 * The runtime's gRPC transport (grpc-server.ts) as gRPC clients meet it: grpc-js for what a real
 * client sends, node:http2 for what one should not.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2'
import { tmpdir } from 'node:os'
import { connect as netConnect } from 'node:net'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Client, credentials, Metadata, Server, ServerCredentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { grpcBindingClient } from '../testing/grpc-client.js'
import { wireCheck } from '../testing/wire-schema.js'
import { codecOf } from './codec.js'
import { a2aServiceDefinition, a2aServiceHandlers } from './grpc-service.js'
import { serveGrpc } from './serve-grpc.js'
import { echo, hold } from './__fixture__/skills.js'

const SEND = '/lf.a2a.v1.A2AService/SendMessage'
const sendRequest = (text: string) => codecOf('lf.a2a.v1.SendMessageRequest').encode({ message: userMessage(text, { skill: 'echo' }) })
const framed = (message: Buffer, compressed = false) => Buffer.concat([Buffer.from([compressed ? 1 : 0, ...u32(message.length)]), message])
const u32 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]
const h2Frame = (type: number, flags: number, stream: number, payload: Buffer) =>
  Buffer.concat([Buffer.from([...u32(payload.length).slice(1), type, flags, ...u32(stream)]), payload])
/** An HPACK block of literals without indexing; every value here is shorter than 127 bytes. */
const literalHeaders = (headers: Record<string, string>) =>
  Buffer.concat(Object.entries(headers).map(([name, value]) => Buffer.concat([Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)])))

let server: TestServer | undefined
const sessions: ClientHttp2Session[] = []
afterEach(async () => {
  for (const session of sessions.splice(0)) session.destroy()
  await server?.close()
  server = undefined
})

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  server = await startTestServer({ skills: [echo, hold], grpc: true, ...options })
  return { server, client: server.client('GRPC', wireCheck) }
}

/** What a grpc-js client of alice's sends: her token and the A2A version. */
function aliceMetadata(): Metadata {
  const metadata = new Metadata()
  metadata.set('authorization', 'Bearer alice')
  metadata.set('a2a-version', '1.0')
  return metadata
}

const grpcPort = (s: TestServer) => Number(s.exchange.agentCard('http://127.0.0.1').supportedInterfaces.at(-1)!.url.split(':').at(-1))

/** One request on node:http2 as a client that may break the protocol sends it: the answer's headers, trailers and body. */
async function rawCall(port: number, headers: Record<string, string>, body?: Buffer | Buffer[]) {
  const session = connect(`http://127.0.0.1:${port}`)
  sessions.push(session)
  const stream = session.request({
    ':method': 'POST',
    ':path': SEND,
    'content-type': 'application/grpc',
    te: 'trailers',
    authorization: 'Bearer alice',
    'a2a-version': '1.0',
    ...headers,
  })
  for (const chunk of [body ?? []].flat()) stream.write(chunk)
  stream.end()
  const chunks: Buffer[] = []
  let response: IncomingHttpHeaders = {}
  let trailers: IncomingHttpHeaders = {}
  stream.on('response', (h) => (response = h))
  stream.on('trailers', (t) => (trailers = t))
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  await new Promise((resolve) => stream.on('close', resolve))
  // A trailers-only answer carries its status in the one header block.
  const status = trailers['grpc-status'] ?? response['grpc-status']
  return {
    response,
    trailers,
    status: Number(status),
    message: decodeURIComponent(String(trailers['grpc-message'] ?? response['grpc-message'] ?? '')),
    body: Buffer.concat(chunks),
  }
}

describe("the runtime's gRPC transport", () => {
  it('answers a request that is not gRPC 415, naming the content type to send', async () => {
    const { server } = await start()
    const reply = await rawCall(grpcPort(server), { 'content-type': 'application/json' }, Buffer.from('{}'))
    expect(reply.response[':status']).toBe(415)
    expect(reply.body.toString()).toMatch(/content-type application\/grpc/)
  })

  it('answers an unknown method UNIMPLEMENTED, naming it', async () => {
    const { server } = await start()
    const reply = await rawCall(grpcPort(server), { ':path': '/lf.a2a.v1.A2AService/Nope' }, framed(sendRequest('x')))
    expect([reply.status, reply.message]).toEqual([GrpcStatus.UNIMPLEMENTED, 'The server does not implement the method /lf.a2a.v1.A2AService/Nope'])
  })

  it('reads a message split across many DATA frames, and one gzip- or deflate-compressed by grpc-js', async () => {
    const { server, client } = await start()
    const long = 'x'.repeat(300_000)
    expect((await client.result('SendMessage', { message: userMessage(long, { skill: 'echo' }) })).task.status.message.parts[0].text).toBe(long)
    for (const algorithm of [1, 2]) {
      const compressing = new Client(`127.0.0.1:${grpcPort(server)}`, credentials.createInsecure(), { 'grpc.default_compression_algorithm': algorithm })
      const definition = a2aServiceDefinition().SendMessage!
      const metadata = aliceMetadata()
      const answer = await new Promise<any>((resolve, reject) =>
        compressing.makeUnaryRequest(
          SEND,
          definition.requestSerialize,
          definition.responseDeserialize,
          { message: userMessage(long, { skill: 'echo' }) },
          metadata,
          (error, value) => (error ? reject(error) : resolve(value)),
        ),
      )
      expect(answer.task.status.state).toBe('TASK_STATE_COMPLETED')
      compressing.close()
    }
  })

  it('refuses a message past maxBodyBytes at its length prefix, RESOURCE_EXHAUSTED, writing nothing', async () => {
    const { server, client } = await start({ maxBodyBytes: 10_000 })
    const reply = await client.call('SendMessage', { message: userMessage('y'.repeat(20_000), { skill: 'echo' }) })
    expect(reply.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED)
    expect(reply.error?.message).toMatch(/larger than max \(\d+ vs\. 10000\)/)
    // The same bytes gzipped fit on the wire, but not once inflated.
    const zipped = gzipSync(sendRequest('y'.repeat(20_000)))
    const bomb = await rawCall(grpcPort(server), { 'grpc-encoding': 'gzip' }, framed(zipped, true))
    expect([bomb.status, bomb.message]).toEqual([GrpcStatus.RESOURCE_EXHAUSTED, 'Received message that decompresses to a size larger than 10000'])
    expect((await client.result('ListTasks', {})).totalSize).toBe(0)
  })

  it('refuses an encoding it cannot read UNIMPLEMENTED, saying which it reads; a compressed flag without one INTERNAL', async () => {
    const { server } = await start()
    const brotli = await rawCall(grpcPort(server), { 'grpc-encoding': 'br' }, framed(sendRequest('x'), true))
    expect([brotli.status, brotli.message]).toEqual([GrpcStatus.UNIMPLEMENTED, 'grpc-encoding "br" is not supported; send identity, deflate or gzip'])
    expect(brotli.response['grpc-accept-encoding']).toBe('identity,deflate,gzip')
    const unnamed = await rawCall(grpcPort(server), {}, framed(sendRequest('x'), true))
    expect([unnamed.status, unnamed.message]).toEqual([GrpcStatus.INTERNAL, 'A message is marked compressed, but the call names no grpc-encoding'])
  })

  it('takes exactly one request message, and a body that ends inside one is refused', async () => {
    const { server } = await start()
    const port = grpcPort(server)
    expect((await rawCall(port, {})).message).toBe(`Received no request message for ${SEND}, which takes one`)
    const two = await rawCall(port, {}, [framed(sendRequest('a')), framed(sendRequest('b'))])
    expect([two.status, two.message]).toEqual([GrpcStatus.UNIMPLEMENTED, `Received a second request message for ${SEND}, which takes one`])
    const cut = await rawCall(port, {}, framed(sendRequest('a')).subarray(0, 12))
    expect(cut.status).toBe(GrpcStatus.INTERNAL)
    expect(cut.message).toMatch(/ended inside a message/)
  })

  it('percent-encodes a non-ASCII grpc-message, which clients read back as sent', async () => {
    const { client } = await start()
    const reply = await client.call('GetTask', { id: 'tâche-%-東京' })
    expect(reply.status).toBe(GrpcStatus.NOT_FOUND)
    expect(reply.error?.message).toContain('tâche-%-東京')
  })

  it("ends a stream DEADLINE_EXCEEDED at the client's deadline, and gives its seat back", async () => {
    const { server, client } = await start({ maxStreamSeatsPerOwner: 1 })
    const task = (await client.result('SendMessage', { message: userMessage('wait', { skill: 'hold' }), configuration: { returnImmediately: true } })).task
    const raw = new Client(`127.0.0.1:${grpcPort(server)}`, credentials.createInsecure())
    const definition = a2aServiceDefinition().SubscribeToTask!
    const metadata = aliceMetadata()
    const call = raw.makeServerStreamRequest(definition.path, definition.requestSerialize, definition.responseDeserialize, { id: task.id }, metadata, {
      deadline: Date.now() + 300,
    })
    const first = await new Promise<any>((resolve) => call.once('data', resolve))
    expect(first.task.id).toBe(task.id)
    const ended = await new Promise<ServiceError>((resolve) => call.on('error', resolve))
    expect(ended.code).toBe(GrpcStatus.DEADLINE_EXCEEDED)
    raw.close()
    await expect.poll(async () => (await client.stream('SubscribeToTask', { id: task.id })).status).toBe(GrpcStatus.OK)
    await client.result('CancelTask', { id: task.id })
  })

  it('cuts a connection whose peer stops answering PINGs, so its stream gives the seat back', async () => {
    const { server, client } = await start({ maxStreamSeatsPerOwner: 1, streamKeepAliveMs: 150 })
    const task = (await client.result('SendMessage', { message: userMessage('wait', { skill: 'hold' }), configuration: { returnImmediately: true } })).task
    // A peer that subscribes, then goes silent: it reads what comes and answers nothing, not even SETTINGS or PING.
    const silent = netConnect(grpcPort(server), '127.0.0.1')
    const received: Buffer[] = []
    silent.on('data', (chunk: Buffer) => received.push(chunk))
    silent.on('error', () => {})
    const closed = new Promise((resolve) => silent.on('close', resolve))
    const request = codecOf('lf.a2a.v1.SubscribeToTaskRequest').encode({ id: task.id })
    const block = literalHeaders({
      ':method': 'POST',
      ':scheme': 'http',
      ':path': '/lf.a2a.v1.A2AService/SubscribeToTask',
      ':authority': '127.0.0.1',
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: 'Bearer alice',
      'a2a-version': '1.0',
    })
    silent.write(
      Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), h2Frame(4, 0, 0, Buffer.alloc(0)), h2Frame(1, 0x4, 1, block), h2Frame(0, 0x1, 1, framed(request))]),
    )
    // Its first event went out, so the seat is taken ...
    await expect.poll(() => Buffer.concat(received).includes(Buffer.from(task.id))).toBe(true)
    expect((await client.stream('SubscribeToTask', { id: task.id })).status).toBe(GrpcStatus.RESOURCE_EXHAUSTED)
    // ... until a PING goes a whole beat unanswered and the connection is cut.
    await closed
    await expect.poll(async () => (await client.stream('SubscribeToTask', { id: task.id })).status).toBe(GrpcStatus.OK)
    await client.result('CancelTask', { id: task.id })
  })

  it('closes gracefully: open streams end UNAVAILABLE at once, a unary call in flight answers, new connections are refused', async () => {
    server = await startTestServer({ skills: [echo, hold] })
    const binding = await serveGrpc(server.exchange, { port: 0, host: '127.0.0.1' })
    const client = grpcBindingClient(`127.0.0.1:${binding.port}`, 'alice', wireCheck)
    try {
      const task = (await client.result('SendMessage', { message: userMessage('wait', { skill: 'hold' }), configuration: { returnImmediately: true } })).task
      const stream = await client.stream('SubscribeToTask', { id: task.id })
      expect(client.eventResult((await stream.next())!).task.id).toBe(task.id)
      const began = Date.now()
      await binding.close({ timeoutMs: 10_000 })
      expect(Date.now() - began).toBeLessThan(5000)
      const events = await stream.ended
      expect(events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: GrpcStatus.UNAVAILABLE, message: expect.stringMatching(/shutting down/) } } })
      expect((await client.call('GetTask', { id: task.id })).status).toBe(GrpcStatus.UNAVAILABLE)
      await server.exchange.shutdown({ timeoutMs: 100 })
    } finally {
      client.close()
    }
  })

  it('serves TLS with the key and certificate it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-grpc-tls-'))
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    const [key, cert] = ['key.pem', 'cert.pem'].map((file) => readFileSync(join(dir, file)))
    server = await startTestServer({ skills: [echo] })
    const binding = await serveGrpc(server.exchange, { port: 0, host: '127.0.0.1', tls: { key, cert } })
    const secure = new Client(`127.0.0.1:${binding.port}`, credentials.createSsl(cert!))
    const plain = new Client(`127.0.0.1:${binding.port}`, credentials.createInsecure())
    try {
      const definition = a2aServiceDefinition().SendMessage!
      const metadata = aliceMetadata()
      const send = (client: Client) =>
        new Promise<any>((resolve) =>
          client.makeUnaryRequest(
            SEND,
            definition.requestSerialize,
            definition.responseDeserialize,
            { message: userMessage('over tls', { skill: 'echo' }) },
            metadata,
            { deadline: Date.now() + 3000 },
            (error, value) => resolve(error ?? value),
          ),
        )
      expect((await send(secure)).task.status.state).toBe('TASK_STATE_COMPLETED')
      expect((await send(plain)).code).toBe(GrpcStatus.UNAVAILABLE)
    } finally {
      secure.close()
      plain.close()
      await binding.close()
    }
  })
})

describe('a2aServiceHandlers on a grpc-js Server', () => {
  it('serves the same service, statuses and details included, on a server the app runs', async () => {
    server = await startTestServer({ skills: [echo, hold] })
    const grpcServer = new Server()
    grpcServer.addService(a2aServiceDefinition(), a2aServiceHandlers(server.exchange.bindingOptions))
    const port = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    )
    const client = grpcBindingClient(`127.0.0.1:${port}`, 'alice', wireCheck)
    try {
      const task = (await client.result('SendMessage', { message: userMessage('hi', { skill: 'echo' }) })).task
      expect(task.status.state).toBe('TASK_STATE_COMPLETED')
      const missing = await client.call('GetTask', { id: 'nope' })
      expect([missing.status, missing.error?.reason]).toEqual([GrpcStatus.NOT_FOUND, 'TASK_NOT_FOUND'])
      expect((await client.call('SendMessage', {}, { token: '' })).status).toBe(GrpcStatus.UNAUTHENTICATED)
      const events = await (await client.stream('SendStreamingMessage', { message: userMessage('streamed', { skill: 'echo' }) })).ended
      expect(events.map((event) => Object.keys(client.eventResult(event))[0])).toEqual(['task', 'statusUpdate'])
      expect((await client.sendRaw(Buffer.from([0x0f]))).error?.message).toMatch(/SendMessageRequest did not decode/)
    } finally {
      client.close()
      grpcServer.forceShutdown()
    }
  })
})
