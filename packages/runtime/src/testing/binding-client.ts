/**
 * One client over either binding, so a test written once runs against JSON-RPC and HTTP+JSON:
 * a method call becomes a JSON-RPC request, or the HTTP+JSON route of that method (path fields
 * in the URL, the rest in the query or the body). Replies are read into one shape: the result, or
 * the error's reason (ErrorInfo), field paths (BadRequest, without the `params.` prefix) and
 * message, beside the HTTP status and the binding's own error body.
 * @module
 */
import { ROUTES } from '../rest/rest-routes.js'
import { openSse, type SseEvent, type SseReply } from './sse-client.js'

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC'
/** The HTTP bindings, which {@link bindingClient} speaks. */
export const BINDINGS: readonly Binding[] = ['JSONRPC', 'HTTP+JSON']
/** With gRPC: a test server started with `grpc: true` gives a client for each (see testing/grpc-client.ts). */
export const EVERY_BINDING: readonly Binding[] = [...BINDINGS, 'GRPC']

export interface CallOptions {
  token?: string
  headers?: Record<string, string>
}

export interface WireError {
  /** The ErrorInfo reason, present for the specification's A2A errors only. */
  reason: string | undefined
  /** BadRequest field paths, e.g. `message.parts[0]`. */
  fields: string[]
  message: string
  /** The JSON-RPC code; undefined on HTTP+JSON. */
  code: number | undefined
}

export interface WireReply {
  status: number
  headers: Headers
  /** The parsed body as sent. */
  body: any
  result: any
  error: WireError | undefined
}

export interface BindingClient {
  binding: Binding
  call(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<WireReply>
  /** The result of a call that must succeed. */
  result(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<any>
  stream(method: string, params?: Record<string, unknown>, options?: CallOptions): Promise<SseReply>
  /** The StreamResponse an SSE event carries. */
  eventResult(event: SseEvent): any
  /** POSTs a raw body where SendMessage is served (the JSON-RPC endpoint, or `/message:send`). */
  sendRaw(body: string | Uint8Array, headers?: Record<string, string>): Promise<WireReply>
}

export interface BindingEndpoints {
  jsonRpc: string
  rest: string
  token: string
}

/** Checks every result and stream event the client receives (e.g. against the A2A JSON Schema). */
export interface WireCheck {
  result(method: string, result: unknown): void
  event(response: unknown): void
}

let nextId = 1

export function bindingClient(binding: Binding, endpoints: BindingEndpoints, check?: WireCheck): BindingClient {
  if (binding === 'GRPC') throw new Error("bindingClient speaks the HTTP bindings; for gRPC start the test server with grpc: true and call its client('GRPC')")
  const headersFor = (options: CallOptions = {}) => {
    const token = options.token ?? endpoints.token
    return { 'A2A-Version': '1.0', 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...options.headers }
  }
  const request = binding === 'JSONRPC' ? rpcRequest(endpoints.jsonRpc) : restRequest(endpoints.rest)
  const client: BindingClient = {
    binding,
    async call(method, params = {}, options) {
      const { url, init } = request(method, params)
      const reply = await readReply(binding, await fetch(url, { ...init, headers: headersFor(options) }))
      if (!reply.error) check?.result(method, reply.result)
      return reply
    },
    async result(method, params, options) {
      const reply = await client.call(method, params, options)
      if (reply.error) throw new Error(`${method} over ${binding} failed: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.result
    },
    stream(method, params = {}, options) {
      const { url, init } = request(method, params)
      return openSse(url, (init.body as string | undefined) ?? '', headersFor(options))
    },
    eventResult(event) {
      const response = binding === 'JSONRPC' ? event.data.result : event.data
      check?.event(response)
      return response
    },
    async sendRaw(body, headers = {}) {
      const url = binding === 'JSONRPC' ? endpoints.jsonRpc : `${endpoints.rest}/message:send`
      return readReply(binding, await fetch(url, { method: 'POST', body, headers: { ...headersFor(), ...headers } }))
    },
  }
  return client
}

type Request = (method: string, params: Record<string, unknown>) => { url: string; init: RequestInit }

const rpcRequest =
  (endpoint: string): Request =>
  (method, params) => ({
    url: endpoint,
    init: { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) },
  })

/** The method's route with its path fields filled in; the other fields go to the body or query. */
const restRequest =
  (base: string): Request =>
  (method, params) => {
    const route = ROUTES.find((r) => r.method === method)
    if (!route) return { url: `${base}/no-route-for/${method}`, init: { method: 'POST' } }
    const rest = { ...params }
    const path = route.pattern.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = String(rest[name] ?? '')
      delete rest[name]
      return encodeURIComponent(value)
    })
    const verb = route.verbs[0]!
    const sendsBody = route.body === 'required' || (route.body === 'optional' && Object.keys(rest).length > 0)
    if (sendsBody) return { url: `${base}/${path}`, init: { method: verb, body: JSON.stringify(rest) } }
    const query = new URLSearchParams()
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) query.set(key, String(value))
    const search = query.size ? `?${query}` : ''
    return { url: `${base}/${path}${search}`, init: { method: verb } }
  }

async function readReply(binding: Binding, response: Response): Promise<WireReply> {
  const text = await response.text()
  const body = text ? JSON.parse(text) : undefined
  const reply: WireReply = { status: response.status, headers: response.headers, body, result: undefined, error: undefined }
  const failure = binding === 'JSONRPC' ? body?.error : response.ok ? undefined : body?.error
  if (!failure) {
    reply.result = binding === 'JSONRPC' ? body?.result : body
    return reply
  }
  const details: any[] = (binding === 'JSONRPC' ? failure.data : failure.details) ?? []
  reply.error = {
    reason: details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason,
    fields: details.flatMap((d) => d.fieldViolations ?? []).map((v: { field: string }) => v.field.replace(/^params\./, '')),
    message: failure.message,
    code: binding === 'JSONRPC' ? failure.code : undefined,
  }
  return reply
}
