/**
 * The HTTP side of the JSON-RPC endpoint, in the order checks cost: method, origin (before the body
 * is read), principal, content type, body cap, envelope, version, then the method itself.
 * Transport refusals stay HTTP statuses; everything a caller can act on is a JSON-RPC error on 200.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Principal, PrincipalResolver } from '../auth/principal.js'
import { negotiateVersion } from '../exchange/version.js'
import { scrub, type Logger } from '../log/logger.js'
import { A2AError, ERROR_DOMAIN, ERROR_INFO_TYPE } from '../wire/a2a-error.js'
import { decodeEnvelope, EnvelopeError, rpcError, rpcResult, type JsonRpcId } from '../wire/json-rpc.js'
import { StreamReply } from '../exchange/streaming.js'
import { SseWriter } from '../stream/sse-writer.js'
import { HttpRefusal } from './http-refusal.js'
import { originAllowed } from './origin.js'
import { readBody } from './read-body.js'
import { sendJson } from './respond.js'

export interface RpcHttpOptions {
  resolvePrincipal: PrincipalResolver
  allowedOrigins: ReadonlySet<string>
  maxBodyBytes: number
  assumeVersionWhenAbsent: string | undefined
  logger: Logger
  call: (principal: Principal, method: string, params: unknown, reresolve: () => Promise<Principal | null | undefined>) => Promise<unknown>
}

const JSON_TYPES = new Set(['application/json', 'application/a2a+json'])

/** A transport refusal: an HTTP status with a JSON-RPC error body for clients that read it. */
function refuse(response: ServerResponse, status: number, code: number, reason: string, message: string, headers: Record<string, string> = {}) {
  sendJson(
    response,
    status,
    { jsonrpc: '2.0', id: null, error: { code, message, data: [{ '@type': ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN }] } },
    headers,
  )
}

export async function handleRpc(options: RpcHttpOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST') {
    return refuse(response, 405, -32600, 'INVALID_REQUEST', 'The A2A endpoint takes JSON-RPC requests by POST', { Allow: 'POST' })
  }
  if (!originAllowed(request.headers, options.allowedOrigins)) {
    return refuse(response, 403, -32600, 'FORBIDDEN_ORIGIN', `Origin ${JSON.stringify(request.headers.origin)} may not call this agent from a browser`)
  }
  if (bodyAlreadyRead(request)) {
    options.logger.error('a2a: the request body was consumed before the exchange ran; mount the exchange before body-parsing middleware such as express.json()')
    return refuse(response, 500, -32603, 'INTERNAL', 'Internal error')
  }
  let principal: Principal | null | undefined
  try {
    principal = await options.resolvePrincipal(request)
  } catch (error) {
    options.logger.error(`a2a: principal resolver threw: ${scrub(error)}`)
    return refuse(response, 500, -32603, 'INTERNAL', 'Internal error')
  }
  if (!principal || typeof principal.owner !== 'string' || principal.owner === '') {
    return refuse(response, 401, -31401, 'UNAUTHENTICATED', 'Authentication required: send credentials this agent accepts (see securitySchemes on its agent card)', {
      'WWW-Authenticate': 'Bearer',
    })
  }
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (!JSON_TYPES.has(mediaType)) {
    return refuse(response, 415, -32600, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type ${JSON.stringify(mediaType || '(none)')} is not accepted; send application/json or application/a2a+json`, {
      Accept: 'application/json, application/a2a+json',
    })
  }
  const body = await readBody(request, options.maxBodyBytes).catch(() => undefined)
  if (!body) return
  if ('tooLarge' in body) {
    return refuse(response, 413, -32600, 'PAYLOAD_TOO_LARGE', `The request body is over the ${options.maxBodyBytes}-byte limit`, { Connection: 'close' })
  }
  if ('notUtf8' in body) return sendJson(response, 200, rpcError(null, A2AError.parse('the body is not valid UTF-8')))

  let id: JsonRpcId = null
  try {
    const envelope = decodeEnvelope(body.text)
    id = envelope.id
    negotiateVersion(headerValue(request.headers['a2a-version']), queryVersion(request.url), options.assumeVersionWhenAbsent)
    const reresolve = async () => options.resolvePrincipal(request)
    const result = await options.call(principal, envelope.method, envelope.params, reresolve)
    if (result instanceof StreamReply) return result.start(new SseWriter(response, id))
    sendJson(response, 200, rpcResult(id, result))
  } catch (error) {
    if (error instanceof EnvelopeError) return sendJson(response, 200, rpcError(error.id, error.error))
    if (error instanceof HttpRefusal) return refuse(response, error.status, error.code, error.reason, error.message, error.headers)
    if (error instanceof A2AError) return sendJson(response, 200, rpcError(id, error))
    options.logger.error(`a2a: internal error answering request ${scrub(id)}: ${scrub(error)}`)
    sendJson(response, 200, rpcError(id, A2AError.internal()))
  }
}

/** The `?A2A-Version=` form, parsed only when the URL has a query at all. */
const queryVersion = (url: string | undefined): string | undefined =>
  url?.includes('?') ? (new URL(url, 'http://localhost').searchParams.get('A2A-Version') ?? undefined) : undefined

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

function bodyAlreadyRead(request: IncomingMessage): boolean {
  return request.readableEnded && (request as { body?: unknown }).body !== undefined
}
