/**
 * Delivers one push notification with the SSRF guard enforced at connect time: the socket's lookup
 * resolves the host, checks every address, and hands those same addresses to the socket, so the
 * address checked is the address dialled and a DNS name that rebinds after registration is caught.
 *
 * node:http / node:https are used rather than fetch: they take a custom `lookup` and, on Node 20,
 * never read HTTP_PROXY / HTTPS_PROXY (a proxy would make the connection the guard cannot see).
 * One attempt, no redirects followed, no keep-alive reuse.
 * @module
 */
import type { LookupAddress } from 'node:dns'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { scrub } from '../log/logger.js'
import { childSpan, injectTraceContext, recordingParent, SpanKind } from '../trace/tracing.js'
import { PUSH_FIX, PushUrlError, bareHost, isForbiddenAddress, isLocalhostName, parsePushUrl, systemLookup, type HostLookup } from './address-guard.js'

export interface WebhookTarget {
  url: string
  token?: string
  authentication?: { scheme: string; credentials?: string }
  /** A 0.3 config's receiver: sent as 0.3 senders send (`application/json`). */
  generation?: '0.3'
}

/** Where a stored push config sends its notifications. */
export function webhookTarget(config: WebhookTarget): WebhookTarget {
  const target: WebhookTarget = { url: config.url }
  if (config.token !== undefined) target.token = config.token
  if (config.authentication) target.authentication = config.authentication
  if (config.generation !== undefined) target.generation = config.generation
  return target
}

// The host only: a push URL's path and query may carry the receiver's secrets.
export function describeUrl(url: string): string {
  try {
    return scrub(new URL(url).host, 200)
  } catch {
    return '(unparsable URL)'
  }
}

export interface DeliverOptions {
  /** Permit internal targets (loopback, RFC 1918, …): development and tests only. */
  allowPrivate: boolean
  /** Covers the whole exchange: lookup, connect, request, response headers and body. */
  timeoutMs?: number
  /** Resolver seam for tests; defaults to the system resolver. */
  lookup?: HostLookup
}

const DEFAULT_TIMEOUT_MS = 10_000
// The receiver's answer is only read to free the socket; past this much it is cut off.
const MAX_RESPONSE_BYTES = 64 * 1024

/**
 * POSTs `body` as application/a2a+json to the target. Resolves with the status of any HTTP
 * response (3xx included: redirects are not followed); rejects on a refused address, a network
 * error or the timeout.
 */
export async function deliverWebhook(target: WebhookTarget, body: unknown, options: DeliverOptions): Promise<{ status: number }> {
  const url = parsePushUrl(target.url)
  const host = bareHost(url)
  if (!options.allowPrivate) {
    // A literal IP never reaches `lookup` (node:net dials it directly), so check it here.
    const reason = isIP(host) !== 0 ? isForbiddenAddress(host) : isLocalhostName(host) ? 'loopback (a localhost name)' : undefined
    if (reason) throw new PushUrlError(`push delivery refused: host ${url.hostname} is ${reason}; ${PUSH_FIX}`)
  }
  const payload = Buffer.from(JSON.stringify(body) ?? 'null')
  const headers: Record<string, string | number> = {
    'Content-Type': target.generation === '0.3' ? 'application/json' : 'application/a2a+json',
    'Content-Length': payload.length,
  }
  // v1.0 defines Authorization; receivers built on v0.3-era SDKs check the token header. Send both.
  if (target.authentication) {
    const { scheme, credentials } = target.authentication
    headers['Authorization'] = credentials ? `${scheme} ${credentials}` : scheme
  }
  if (target.token !== undefined) headers['X-A2A-Notification-Token'] = target.token
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const attributes = { 'http.request.method': 'POST', 'server.address': host, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) }
  // The receiver gets the run's trace context, this delivery's span as the parent.
  return childSpan(
    'push delivery',
    attributes,
    () => {
      injectTraceContext(headers)
      return post(send, url, host, headers, payload, timeoutMs, options)
    },
    SpanKind.CLIENT,
  )
}

function post(
  send: typeof httpRequest,
  url: URL,
  host: string,
  headers: Record<string, string | number>,
  payload: Buffer,
  timeoutMs: number,
  options: DeliverOptions,
): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    let settled = false
    const settle = (outcome: { status: number } | Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (outcome instanceof Error) return reject(outcome)
      recordingParent()?.setAttribute('http.response.status_code', outcome.status)
      resolve(outcome)
    }
    const req = send(
      {
        hostname: host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        // A fresh agent per request: no pooled socket dialled for some other checked address.
        agent: false,
        lookup: guardedLookup(options.allowPrivate, options.lookup ?? systemLookup),
      },
      (res) => drain(res, (status) => settle({ status })),
    )
    const timer = setTimeout(() => {
      settle(new Error(`push delivery to ${url.host} timed out after ${timeoutMs} ms`))
      req.destroy()
    }, timeoutMs)
    req.on('error', (error) => {
      settle(error instanceof PushUrlError ? error : new Error(`push delivery to ${url.host} failed: ${scrub(error, 200)}`, { cause: error }))
    })
    req.end(payload)
  })
}

// Reads and discards the body up to the cap; reports the status once the exchange is over.
function drain(res: IncomingMessage, done: (status: number) => void): void {
  const status = res.statusCode ?? 0
  let seen = 0
  res.on('data', (chunk: Buffer) => {
    seen += chunk.length
    if (seen > MAX_RESPONSE_BYTES) {
      done(status)
      res.destroy()
    }
  })
  res.on('end', () => done(status))
  // The receiver answered; a body cut short (reset, our own cap) does not undo that.
  res.on('error', () => done(status))
  res.on('close', () => done(status))
}

/**
 * The socket's `lookup`: resolves once, refuses if any address is internal (unless allowed), and
 * returns exactly the checked addresses for the socket to dial.
 */
export function guardedLookup(allowPrivate: boolean, resolveHost: HostLookup): LookupFunction {
  return (hostname, options, callback) => {
    const checked = resolveHost(hostname).then(
      (addresses): LookupAddress[] | Error => {
        if (!allowPrivate) {
          for (const address of addresses) {
            const reason = isForbiddenAddress(address)
            if (reason) {
              return new PushUrlError(`push delivery refused: host ${hostname} resolves to ${address}, which is ${reason}; ${PUSH_FIX}`)
            }
          }
        }
        const want = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
        const entries = addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => entry.family !== 0 && (!want || entry.family === want))
        if (entries.length === 0) {
          return Object.assign(new Error(`push delivery: host ${hostname} resolves to no usable address`), {
            code: 'ENOTFOUND',
          })
        }
        return entries
      },
      (error: unknown) => (error instanceof Error ? error : new Error(scrub(error))),
    )
    // One callback call, outside the promise chain, so a throwing callback cannot re-enter it.
    void checked.then((result) => {
      queueMicrotask(() => {
        if (result instanceof Error) callback(result, '', 0)
        else if (options.all) callback(null, result)
        else callback(null, result[0]!.address, result[0]!.family)
      })
    })
  }
}
