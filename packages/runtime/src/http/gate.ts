/**
 * The checks every A2A request passes before its method runs, on either binding, in the order
 * they cost: origin (before the body is read), principal, content type, body cap; then, once the
 * request is read, protocol version and extensions. Transport refusals are answered through the
 * binding's own `refuse`, so each binding keeps its error body.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Principal, PrincipalResolver } from '../core/principal.js'
import { requestBaseUrl } from './base-url.js'
import { bearerChallenge } from './bearer-challenge.js'
import { negotiateExtensions } from './extensions.js'
import { negotiateVersion } from './version.js'
import { scrub, type Logger } from '../log/logger.js'
import { A2AError } from '../wire/a2a-error.js'
import { checkBodyText, type RequestLimits } from '../wire/limits.js'
import type { AgentExtension } from '../wire/types.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { refusalOf } from './refusal-of.js'
import { originAllowed } from './origin.js'
import { bodyAtOnce, bodyRefusal, readBody, type BodyLimits } from './read-body.js'

export interface GateOptions extends BodyLimits {
  /** The request limits the body text is held to before it is parsed. */
  requestLimits: RequestLimits
  resolvePrincipal: PrincipalResolver
  allowedOrigins: ReadonlySet<string>
  assumeVersionWhenAbsent: string | undefined
  /** The extensions the card declares; the required ones must be requested in A2A-Extensions. */
  extensions: readonly AgentExtension[]
  /** The card's publicUrl; else each request's own scheme and Host. */
  publicUrl: string | undefined
  logger: Logger
}

/** Answers a transport refusal in the binding's error format. */
export type Refuse = (status: number, error: A2AError, headers?: Record<string, string>) => undefined

export interface Admitted {
  principal: Principal
  /** The body text; undefined when the route takes none. */
  text: string | undefined
  /** The body's first repeated key, found by the limits scan (see checkBodyText), refused once the body parses. */
  repeated: string | undefined
}

const JSON_TYPES = new Set(['application/json', 'application/a2a+json'])

/**
 * Admits the request or refuses it (and returns undefined). Throws a -32700 A2AError for a body
 * that is not UTF-8, which each binding answers as its parse error, and a -32602 for one nested
 * past maxJsonDepth. `nested`: the top-level member whose keys the repeated-key rule covers too.
 */
export async function admit(options: GateOptions, request: IncomingMessage, refuse: Refuse, readsBody: boolean, nested?: string): Promise<Admitted | undefined> {
  if (!originAllowed(request.headers, options.allowedOrigins)) {
    return refuse(403, A2AError.invalidRequest(`Origin ${JSON.stringify(request.headers.origin)} may not call this agent from a browser`))
  }
  if (readsBody && bodyAlreadyRead(request)) {
    options.logger.error('a2a: the request body was consumed before the exchange ran; mount the exchange before body-parsing middleware such as express.json()')
    return refuse(500, A2AError.internal())
  }
  const principal = await resolveCaller(options.resolvePrincipal, request, options.logger)
  if (principal instanceof HttpRefusal) return refuse(principal.status, principal.error, principal.headers)
  if (!principal || typeof principal.owner !== 'string' || principal.owner === '') {
    const refusal = unauthenticated(baseUrlOf(options, request))
    return refuse(refusal.status, refusal.error, refusal.headers)
  }
  if (!readsBody) return { principal, text: undefined, repeated: undefined }
  const contentType = request.headers['content-type']
  // Most clients send exactly this: nothing to split, trim or fold.
  const mediaType = contentType === 'application/json' ? contentType : (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (!JSON_TYPES.has(mediaType)) {
    const message = `Content-Type ${JSON.stringify(mediaType || '(none)')} is not accepted; send application/json or application/a2a+json`
    return refuse(415, new A2AError('CONTENT_TYPE_NOT_SUPPORTED', message, { metadata: { contentType: mediaType } }), {
      Accept: 'application/json, application/a2a+json',
    })
  }
  // Awaited only when the body is still arriving: each await is a turn of the microtask queue.
  const body = bodyAtOnce(request, options) ?? (await readBody(request, options).catch(() => undefined))
  if (!body) return undefined
  if ('text' in body) {
    // The envelope (or the REST body) is one level above params.
    const repeated = checkBodyText(body.text, options.requestLimits, 1, true, nested)
    return { principal, text: body.text, repeated }
  }
  if ('notUtf8' in body) throw A2AError.parse('the body is not valid UTF-8')
  const refusal = bodyRefusal(body, options)
  return refuse(refusal.status, A2AError.invalidRequest(refusal.message), { Connection: 'close' })
}

/**
 * The caller's principal, or the refusal that stands for a resolver that threw: its own refusal
 * (apiKeyResolver: 503 while the database is unreachable), 503 with Retry-After for a store it
 * could not reach, else 500 (logged).
 */
export async function resolveCaller(resolve: PrincipalResolver, request: IncomingMessage, logger: Logger): Promise<Principal | null | undefined | HttpRefusal> {
  try {
    return await resolve(request)
  } catch (error) {
    const refusal = refusalOf(error)
    if (refusal) return refusal
    logger.error(`a2a: principal resolver threw: ${scrub(error)}`)
    return new HttpRefusal(500, A2AError.internal())
  }
}

/** The 401 for a request without credentials this agent accepts, with the challenge naming its metadata. */
export const unauthenticated = (baseUrl: string): HttpRefusal =>
  new HttpRefusal(401, A2AError.unauthenticated('Authentication required: send credentials this agent accepts (see securitySchemes on its agent card)'), {
    'WWW-Authenticate': bearerChallenge(baseUrl),
  })

/**
 * The A2A-Version and A2A-Extensions service parameters: throws -32009 or -32008, and echoes the
 * extensions this request activates in the response's A2A-Extensions header.
 */
export function negotiate(options: GateOptions, request: IncomingMessage, response: ServerResponse): void {
  negotiateVersion(headerValue(request.headers['a2a-version']), queryVersion(request.url), options.assumeVersionWhenAbsent)
  const activated = negotiateExtensions(options.extensions, request.headers['a2a-extensions'])
  if (activated.length) response.setHeader('A2A-Extensions', activated.join(', '))
}

/** scheme://host[:port] the caller reached the agent at: what the card's URLs are built on. */
export const baseUrlOf = (options: GateOptions, request: IncomingMessage): string => options.publicUrl ?? requestBaseUrl(request)

/** A resolver re-run for long-lived streams, which check their caller at each keep-alive. */
export const reresolver = (options: GateOptions, request: IncomingMessage) => async () => options.resolvePrincipal(request)

/** The `?A2A-Version=` form, parsed only when the URL has a query at all. */
export const queryVersion = (url: string | undefined): string | undefined =>
  url?.includes('?') ? (new URL(url, 'http://localhost').searchParams.get('A2A-Version') ?? undefined) : undefined

export const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

function bodyAlreadyRead(request: IncomingMessage): boolean {
  return request.readableEnded && (request as { body?: unknown }).body !== undefined
}
