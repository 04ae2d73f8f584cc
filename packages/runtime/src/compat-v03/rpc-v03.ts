/**
 * Where a JSON-RPC request is read as A2A 0.3, on an agent that opted in (`compat: { v03: true }`):
 * no `A2A-Version` (or a 0.x one) makes it a 0.3 request, answered through {@link V03_METHODS}
 * and, when it streams, a framing that re-shapes each event. Everything before (gate, envelope,
 * limits) and under it (the method table, the store) is the 1.0 path's own.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { negotiateExtensions } from '../http/extensions.js'
import type { GateOptions } from '../http/gate.js'
import { A2AError } from '../wire/a2a-error.js'
import type { JsonRpcId } from '../wire/json-rpc.js'
import { rpcFraming, SseWriter, type SseFraming } from '../stream/sse-writer.js'
import type { StreamResponse } from '../wire/types.js'
import { V03_METHODS, type Invoke, type V03Method } from './methods-v03.js'
import { streamEventToV03, type StreamEnd } from '../wire/to-v03.js'
import { requestedVersion } from './version-v03.js'

export interface V03Request {
  /** The extensions of the request (0.3 names them in X-A2A-Extensions): throws -32008 for a required one not asked for. */
  negotiate(options: GateOptions, request: IncomingMessage, response: ServerResponse): void
  run(invoke: Invoke, params: unknown): Promise<unknown>
  /** The framing of a streaming answer's events, under the request's id. */
  framing(id: JsonRpcId): SseFraming
  /** Whether the method streams: its errors are then sent as a stream's one event, as 0.3 clients read them. */
  readonly streams: boolean
  /** Answers an error of a streaming method before its first event: a stream of one error event. */
  failStream(response: ServerResponse, id: JsonRpcId, error: A2AError): void
}

const V03_NAMES = Object.keys(V03_METHODS).join(', ')

/**
 * The 0.3 reading of this request, or undefined when it is a 1.0 one (an `A2A-Version: 1.x`, or
 * no version on a 1.0 method name while the app assumes 1.0 for header-less requests). Throws
 * -32601 for a method 0.3 does not have.
 */
export function claimV03(options: GateOptions, request: IncomingMessage, method: string): V03Request | undefined {
  const version = requestedVersion(request)
  if (version === '' ? !method.includes('/') && options.assumeVersionWhenAbsent !== undefined : !version.startsWith('0.')) return undefined
  const entry = Object.hasOwn(V03_METHODS, method) ? V03_METHODS[method]! : undefined
  if (!entry) {
    const hint = method.includes('/')
      ? `A2A 0.3 methods: ${V03_NAMES}`
      : `A request without A2A-Version is A2A 0.3 here, whose methods are ${V03_NAMES}; for the 1.0 method ${method} send the header "A2A-Version: 1.0"`
    throw A2AError.methodNotFound(method, hint)
  }
  return new V03Answer(entry)
}

class V03Answer implements V03Request {
  constructor(readonly method: V03Method) {}

  negotiate(options: GateOptions, request: IncomingMessage, response: ServerResponse): void {
    // The 1.0 header is read too, for clients that send it.
    const activated = negotiateExtensions(options.extensions, request.headers['x-a2a-extensions'] ?? request.headers['a2a-extensions'])
    if (activated.length) response.setHeader('X-A2A-Extensions', activated.join(', '))
  }

  run(invoke: Invoke, params: unknown): Promise<unknown> {
    return this.method.run(invoke, params)
  }

  framing(id: JsonRpcId): SseFraming {
    return new V03Framing(rpcFraming(id), this.method.stream ?? 'terminal')
  }

  get streams(): boolean {
    return this.method.stream !== undefined
  }

  failStream(response: ServerResponse, id: JsonRpcId, error: A2AError): void {
    new SseWriter(response, this.framing(id)).fail(error)
  }
}

/** Each event the 1.0 stream encoded, decoded and encoded again in its 0.3 shape; errors as 1.0 frames them (the codes are shared). */
class V03Framing implements SseFraming {
  constructor(
    readonly rpc: SseFraming,
    readonly end: StreamEnd,
  ) {}

  result(resultJson: string): string {
    return this.rpc.result(JSON.stringify(streamEventToV03(JSON.parse(resultJson) as StreamResponse, this.end)))
  }

  error(error: A2AError): string {
    return this.rpc.error(error)
  }
}
