/**
 * A Node HTTP server with explicit timeouts, so a client that sends its headers or body slowly is
 * cut off by the server itself rather than holding a connection for Node's defaults (a 60 s header
 * wait, a 5 min request wait, checked only every 30 s), and a listen backlog sized for bursts.
 * @module
 */
import { createServer, type RequestListener, type Server } from 'node:http'
import type { ListenOptions } from 'node:net'

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

export interface HttpServerOptions extends ServerTimeouts {
  /**
   * Connections the kernel queues while the process is busy, used by every `listen()` that names
   * none; default 65535, i.e. as many as the system allows (Linux caps it at net.core.somaxconn,
   * 4096 unless raised), as Go's net package does. A connection arriving at a full queue is
   * dropped and retried by the client after 1 s, then 3 s, 7 s: a burst of clients past it waits
   * seconds for its first byte. Node's own default is 511.
   */
  listenBacklog?: number
}

export const DEFAULT_SERVER_TIMEOUTS: Required<ServerTimeouts> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  timeoutCheckIntervalMs: 1_000,
}

export const DEFAULT_LISTEN_BACKLOG = 65535

/** `createHttpServer(app).listen(3000)`: the app (Express or any request listener) behind those timeouts. */
export function createHttpServer(listener: RequestListener, options: HttpServerOptions = {}): Server {
  const { listenBacklog = DEFAULT_LISTEN_BACKLOG, ...timeouts } = definedOnly(options)
  const t = { ...DEFAULT_SERVER_TIMEOUTS, ...timeouts }
  if (t.headersTimeoutMs > t.requestTimeoutMs) {
    throw new Error(`headersTimeoutMs (${t.headersTimeoutMs}) must not exceed requestTimeoutMs (${t.requestTimeoutMs})`)
  }
  if (!Number.isInteger(listenBacklog) || listenBacklog < 1) throw new Error(`listenBacklog must be a positive integer, got ${listenBacklog}`)
  const server = createServer(
    {
      headersTimeout: t.headersTimeoutMs,
      requestTimeout: t.requestTimeoutMs,
      keepAliveTimeout: t.keepAliveTimeoutMs,
      connectionsCheckingInterval: t.timeoutCheckIntervalMs,
    },
    listener,
  )
  return withBacklog(server, listenBacklog)
}

/**
 * `listen(port[, host][, backlog][, callback])` and `listen(options[, callback])` get `backlog` unless they
 * give their own; other forms (a pipe path, a handle) pass through untouched.
 */
function withBacklog(server: Server, backlog: number): Server {
  const listen = server.listen.bind(server) as (...args: unknown[]) => Server
  server.listen = ((...args: unknown[]) => {
    const [first] = args
    // listen() and listen(callback): any free port.
    if (first === undefined || typeof first === 'function') return listen({ port: 0, backlog }, ...args)
    if (typeof first === 'object' && first !== null && !('_handle' in first) && !('fd' in first)) {
      const options = first as ListenOptions
      return listen(options.backlog === undefined && options.path === undefined ? { ...options, backlog } : options, ...args.slice(1))
    }
    if (typeof first !== 'number' && !(typeof first === 'string' && /^\d+$/.test(first))) return listen(...args)
    const callback = typeof args.at(-1) === 'function' ? (args.at(-1) as () => void) : undefined
    const [port, ...rest] = (callback ? args.slice(0, -1) : args) as [number | string, ...(string | number | undefined)[]]
    // Node reads listen(port, backlog) as well as listen(port, host, backlog).
    const host = typeof rest[0] === 'number' ? undefined : (rest.shift() as string | undefined)
    const ownBacklog = rest[0] as number | undefined
    const options: ListenOptions = { port: Number(port), backlog: ownBacklog ?? backlog, ...(host === undefined ? {} : { host }) }
    return callback ? listen(options, callback) : listen(options)
  }) as Server['listen']
  return server
}

const definedOnly = <T extends object>(options: T): T => Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T
