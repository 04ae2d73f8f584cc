/**
 * Server-sent events on a Node response, framed by eventsource-encoder. Every event's data is one
 * StreamResponse in the binding's framing (a complete JSON-RPC response, or the bare object on
 * HTTP+JSON); its SSE `id` is the task version the event's write produced.
 * @module
 */
import type { ServerResponse } from 'node:http'
import { encode, encodeComment } from 'eventsource-encoder'
import type { A2AError } from '../wire/a2a-error.js'
import { TurnBatch } from '../core/turns.js'
import { answerText } from '../wire/json-safe.js'
import { rpcError, type JsonRpcId } from '../wire/json-rpc.js'
import type { StreamResponse } from '../wire/types.js'

/** How one binding frames the data of its events. */
export interface SseFraming {
  /** The data of an event carrying a result already encoded as JSON. */
  result(resultJson: string): string
  /** The data of the `error` event that ends a stream. */
  error(error: A2AError): string
}

/** JSON-RPC: each event is a response to the request that opened the stream, under its id. */
export const rpcFraming = (id: JsonRpcId): SseFraming => new RpcFraming(id)

/** An object with its methods on the prototype: one allocation per stream, not two closures and their scope. */
class RpcFraming implements SseFraming {
  readonly #id: JsonRpcId
  readonly #head: string

  constructor(id: JsonRpcId) {
    this.#id = id
    this.#head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`
  }

  result(resultJson: string): string {
    return `${this.#head}${resultJson}}`
  }

  error(error: A2AError): string {
    return JSON.stringify(rpcError(this.#id, error))
  }
}

/** As a flat list, which writeHead takes without walking an object's keys. */
const SSE_HEADERS = [
  ['Content-Type', 'text/event-stream'],
  ['Cache-Control', 'no-cache, no-transform'],
  // Proxies such as nginx buffer responses unless told otherwise.
  ['X-Accel-Buffering', 'no'],
].flat()

/** Told when the stream ends, whichever side ended it: an object with the method, so a stream's parts register no closure each. */
export interface StreamCloseListener {
  streamClosed(): void
}

export type Closer = StreamCloseListener | (() => void)

/**
 * Where a stream's events go: an SSE response here, a gRPC server stream on that binding. Task
 * streams, seats and rechecks write to this, never to a transport.
 */
export interface EventSink {
  readonly open: boolean
  /** Runs (or tells) `closer` when the stream ends, whichever side ended it; at once if it has. */
  onClose(closer: Closer): void
  send(result: StreamResponse, version?: number): void
  /** A result already encoded as JSON (one event fans out to every stream of its task). */
  sendEncoded(resultJson: string, version?: number): void
  keepAlive(): void
  /** An error after the first event: the stream ends with it. */
  fail(error: A2AError): void
  close(): void
}

/** Where a response keeps its writer, for the one close listener all responses share. */
const WRITER = Symbol('a2a.sseWriter')

export class SseWriter implements EventSink {
  #open = true
  #wrote = false
  /** Events written in this turn, not yet handed to the response. */
  #pending = ''
  readonly #closers: Closer[] = []

  /** The response's close, heard by one function for every response (node calls it on the response). */
  static #responseClosed(this: ServerResponse & { [WRITER]?: SseWriter }): void {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the response (node calls the listener on it), not the class
    const writer = this[WRITER]
    if (writer) writer.#finish()
  }

  constructor(
    private readonly response: ServerResponse,
    private readonly framing: SseFraming,
  ) {
    // No Connection header of ours: Node answers the request's own (keep-alive, or close and
    // closing the socket once the stream ends); a fixed `keep-alive` held a socket whose client
    // asked to close open for the keep-alive timeout after every stream.
    response.writeHead(200, SSE_HEADERS)
    unflushed.add(this)
    ;(response as ServerResponse & { [WRITER]?: SseWriter })[WRITER] = this
    response.on('close', SseWriter.#responseClosed)
  }

  get open(): boolean {
    return this.#open
  }

  /** Runs (or tells) `closer` when the stream ends, whichever side ended it; at once if it has. */
  onClose(closer: Closer): void {
    if (this.#open) this.#closers.push(closer)
    else close(closer)
  }

  /** A snapshot of the task a run just stored is sent as the text the store encoded it to. */
  send(result: StreamResponse, version?: number): void {
    this.sendEncoded(answerText(result)!, version)
  }

  /**
   * Sends a result already encoded as JSON: one event fans out to every stream of its task, so it
   * is serialized once and only this stream's framing is added.
   */
  sendEncoded(resultJson: string, version?: number): void {
    if (!this.#open) return
    const data = this.framing.result(resultJson)
    this.#write(version === undefined ? event(data) : `id: ${version}\n${event(data)}`)
  }

  keepAlive(): void {
    if (this.#open) this.#write(`${encodeComment('keep-alive')}\n`)
  }

  /** An error after the first event: an `error` event, then the stream ends. */
  fail(error: A2AError): void {
    if (!this.#open) return
    this.#write(encode({ event: 'error', data: this.framing.error(error) }))
    this.close()
  }

  close(): void {
    if (!this.#open) return
    const rest = this.#pending
    this.#pending = ''
    this.response.end(rest)
    this.#finish()
  }

  /** The events of this turn go out together, after it: a snapshot and the event that follows it are one write. */
  #write(text: string): void {
    this.#wrote = true
    if (this.#pending === '' && pending.push(this) === 1) queueMicrotask(writePending)
    this.#pending += text
  }

  /** Hands this turn's events to the response (called once the turn's writes are done). */
  flush(): void {
    const text = this.#pending
    this.#pending = ''
    if (text && this.#open) this.response.write(text)
  }

  /** The headers alone, for a stream whose first event was not ready by the end of the turn (called then). */
  flushHeaders(): void {
    if (this.#open && !this.#wrote) this.response.flushHeaders()
  }

  #finish(): void {
    if (!this.#open) return
    this.#open = false
    for (const closer of this.#closers.splice(0)) close(closer)
  }
}

const close = (closer: Closer): void => (typeof closer === 'function' ? closer() : closer.streamClosed())

/** Runs or tells a closer: for other sinks' ends. */
export { close as notifyClosed }

/** Streams with events written this turn; one microtask writes them all. */
let pending: SseWriter[] = []

function writePending(): void {
  const writers = pending
  pending = []
  for (const writer of writers) writer.flush()
}

/**
 * Streams opened this turn. Their headers go out with their first event, in one write (a socket
 * write costs more than the event); a stream whose first event is not ready by the next turn of
 * the loop sends them alone then, so its client knows it is open (a stream closed by then sends
 * nothing).
 */
const unflushed = new TurnBatch<SseWriter>((writers) => {
  for (const writer of writers) writer.flushHeaders()
})

/**
 * One `data:` event. Event data is JSON, which never holds a raw CR or LF, so it is one line and
 * needs none of the encoder's line splitting; anything else goes through the encoder.
 */
const event = (data: string): string => (data.includes('\n') || data.includes('\r') ? encode({ data }) : `data: ${data}\n\n`)
