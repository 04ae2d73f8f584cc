/**
 * A real listening server for tests: the exchange mounted on an Express app (see mount.ts) on 127.0.0.1 and
 * a small JSON-RPC client that speaks to it over HTTP.
 * @module
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { Principal, PrincipalResolver } from '../core/principal.js'
import { createExchange, type Exchange, type ExchangeOptions } from '../exchange/exchange.js'
import { bindingClient, type Binding, type BindingClient, type WireCheck } from './binding-client.js'
import { createHttpServer, type ServerTimeouts } from '../http/http-server.js'
import { mounted, testMount, type Mount } from './mount.js'
import { openSse, type SseEvent, type SseReply } from './sse-client.js'

/** Resolves `Authorization: Bearer <token>` through a fixed token → principal table. */
export function tokenResolver(tokens: Record<string, Principal>): PrincipalResolver {
  const table = new Map(Object.entries(tokens))
  return (request) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    return match ? table.get(match[1]!) : undefined
  }
}

export interface RpcOptions {
  token?: string
  headers?: Record<string, string>
  id?: string | number
}

export interface RpcReply {
  status: number
  headers: Headers
  body: any
}

export interface TestServer {
  url: string
  exchange: Exchange
  /** POSTs a JSON-RPC request and returns status, headers and parsed body. */
  rpc(method: string, params?: unknown, options?: RpcOptions): Promise<RpcReply>
  /** The `result` of a successful call; throws with the error body otherwise. */
  result(method: string, params?: unknown, options?: RpcOptions): Promise<any>
  /** Calls a streaming method and reads the SSE answer with a real SSE parser. */
  stream(method: string, params?: unknown, options?: RpcOptions): Promise<SseReply>
  /** POSTs a raw body to the endpoint. */
  post(body: string, headers?: Record<string, string>): Promise<RpcReply>
  /** A client over one binding (JSON-RPC or HTTP+JSON), with the default token; `check` (default: the server's) sees every payload. */
  client(binding: Binding, check?: WireCheck): BindingClient
  close(): Promise<void>
}

export type TestServerOptions = Omit<ExchangeOptions, 'card' | 'resolvePrincipal'> & {
  card?: ExchangeOptions['card']
  resolvePrincipal?: PrincipalResolver
  /** Token table used when no resolver is given; default token "alice" → owner alice, "bob" → bob. */
  tokens?: Record<string, Principal>
  /** Default bearer token for rpc(); default "alice". */
  token?: string
  /** The HTTP server's timeouts; default DEFAULT_SERVER_TIMEOUTS, as apps run. */
  serverTimeouts?: ServerTimeouts
  /** Sees every successful result and stream event the server sends (e.g. a JSON Schema check). */
  check?: WireCheck
  /** a2aListener in front of an Express app (as generated apps run; the default) or a2aRouter inside it; A2A_TEST_MOUNT sets the default. */
  mount?: Mount
  /** Serves the gRPC binding too (serveGrpc on 127.0.0.1), for client('GRPC'). */
  grpc?: boolean
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const { tokens, token: defaultToken = 'alice', serverTimeouts, check, mount = testMount(), grpc: withGrpc, ...rest } = options
  const exchange = createExchange({
    card: { name: 'Test agent', description: 'An agent under test', version: '0.0.0' },
    resolvePrincipal: tokenResolver(tokens ?? { alice: { owner: 'alice' }, bob: { owner: 'bob' } }),
    ...rest,
  })
  const app = express()
  app.disable('x-powered-by')
  const server = createHttpServer(mounted(exchange, app, mount), serverTimeouts).listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const endpoint = `${url}${exchange.path ?? ''}`
  const grpc = withGrpc ? await startGrpc(exchange) : undefined
  const grpcClients: { close(): void }[] = []

  const post = async (body: string, headers: Record<string, string> = {}): Promise<RpcReply> => {
    const response = await fetch(endpoint, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
  }
  let nextId = 1
  const rpc = async (method: string, params: unknown = {}, rpcOptions: RpcOptions = {}) => {
    const token = rpcOptions.token ?? defaultToken
    const reply = await post(JSON.stringify({ jsonrpc: '2.0', id: rpcOptions.id ?? nextId++, method, params }), {
      'A2A-Version': '1.0',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...rpcOptions.headers,
    })
    if (check && reply.status === 200 && reply.body?.result !== undefined) check.result(method, reply.body.result)
    return reply
  }
  const stream = async (method: string, params: unknown = {}, rpcOptions: RpcOptions = {}) => {
    const token = rpcOptions.token ?? defaultToken
    const reply = await openSse(endpoint, JSON.stringify({ jsonrpc: '2.0', id: rpcOptions.id ?? nextId++, method, params }), {
      'A2A-Version': '1.0',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...rpcOptions.headers,
    })
    return check ? checkedEvents(reply, check) : reply
  }
  return {
    url,
    exchange,
    rpc,
    stream,
    post,
    client: (binding, clientCheck = check) => {
      if (binding !== 'GRPC') return bindingClient(binding, { jsonRpc: endpoint, rest: `${url}${exchange.restPath ?? ''}`, token: defaultToken }, clientCheck)
      if (!grpc) throw new Error("client('GRPC') needs a test server started with grpc: true")
      const client = grpc.client(defaultToken, clientCheck)
      grpcClients.push(client)
      return client
    },
    async result(method, params, rpcOptions) {
      const reply = await rpc(method, params, rpcOptions)
      if (reply.status !== 200 || reply.body?.error) throw new Error(`${method} failed: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.body.result
    },
    async close() {
      for (const client of grpcClients) client.close()
      await grpc?.binding.close({ timeoutMs: 1000 })
      await exchange.shutdown({ timeoutMs: 1000 })
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The gRPC binding on a free loopback port and its test client, loaded only when a test asks for gRPC. */
async function startGrpc(exchange: Exchange) {
  const [{ serveGrpc }, { grpcBindingClient }] = await Promise.all([import('../grpc/serve-grpc.js'), import('./grpc-client.js')])
  const binding = await serveGrpc(exchange, { port: 0, host: '127.0.0.1' })
  return { binding, client: (token: string, check?: WireCheck) => grpcBindingClient(`127.0.0.1:${binding.port}`, token, check) }
}

/** Runs each event's result through `check` as the test reads it. */
function checkedEvents(reply: SseReply, check: WireCheck): SseReply {
  const seen = (event: SseEvent | undefined) => {
    if (event?.data?.result !== undefined) check.event(event.data.result)
    return event
  }
  const { next, ended } = reply
  return Object.assign(reply, {
    next: async () => seen(await next()),
    ended: ended.then((events) => (events.forEach(seen), events)),
  })
}

let messageCounter = 0

/** A user message with a fresh id; `skill` goes into metadata. */
export function userMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { skill, ...rest } = extra
  return {
    messageId: `m-${process.pid}-${++messageCounter}-${Date.now()}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(skill ? { metadata: { skill } } : {}),
    ...rest,
  }
}
