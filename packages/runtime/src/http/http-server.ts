/**
 * A Node HTTP server with explicit timeouts, so a client that sends its headers or body slowly is
 * cut off by the server itself rather than holding a connection for Node's defaults (a 60 s header
 * wait, a 5 min request wait, checked only every 30 s).
 * @module
 */
import { createServer, type RequestListener, type Server } from 'node:http'

export interface ServerTimeouts {
  /** Longest wait for a request's complete headers; default 10 s. */
  headersTimeoutMs?: number
  /** Longest wait for a whole request, headers and body; default 60 s. Responses (streams) are not limited. */
  requestTimeoutMs?: number
  /** How long an idle keep-alive connection stays open; default 5 s. */
  keepAliveTimeoutMs?: number
  /** How often the two request timeouts are checked; default 1 s. */
  timeoutCheckIntervalMs?: number
}

export const DEFAULT_SERVER_TIMEOUTS: Required<ServerTimeouts> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  timeoutCheckIntervalMs: 1_000,
}

/** `createHttpServer(app).listen(3000)`: the app (Express or any request listener) behind those timeouts. */
export function createHttpServer(listener: RequestListener, timeouts: ServerTimeouts = {}): Server {
  const t = { ...DEFAULT_SERVER_TIMEOUTS, ...definedOnly(timeouts) }
  if (t.headersTimeoutMs > t.requestTimeoutMs) {
    throw new Error(`headersTimeoutMs (${t.headersTimeoutMs}) must not exceed requestTimeoutMs (${t.requestTimeoutMs})`)
  }
  return createServer(
    {
      headersTimeout: t.headersTimeoutMs,
      requestTimeout: t.requestTimeoutMs,
      keepAliveTimeout: t.keepAliveTimeoutMs,
      connectionsCheckingInterval: t.timeoutCheckIntervalMs,
    },
    listener,
  )
}

const definedOnly = (timeouts: ServerTimeouts): ServerTimeouts =>
  Object.fromEntries(Object.entries(timeouts).filter(([, value]) => value !== undefined))
