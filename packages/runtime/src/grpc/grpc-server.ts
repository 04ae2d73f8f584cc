/**
 * The gRPC transport `serveGrpc` runs: gRPC's HTTP/2 protocol (grpc/doc/PROTOCOL-HTTP2.md) on
 * node:http2, for the A2AService's shape of call only (one request message; one answer, or a server
 * stream). Not grpc-js's Server: measured on this binding, its per-call machinery (interceptor
 * chain, call state objects, metadata classes) cost as much CPU as the whole A2A work of a
 * SendMessage, and a bare grpc-js server answering a fixed task came to about 2× the official SDK's
 * A2A server, leaving nothing for the work itself. grpc-js stays the client the tests and the
 * official SDK dial this server with, and `a2aServiceHandlers` still mounts the service on a grpc-js
 * Server an app already runs.
 *
 * What a gRPC server owes its clients is kept: 415 for a request that is not gRPC, UNIMPLEMENTED
 * for an unknown method or an encoding it cannot read, RESOURCE_EXHAUSTED for a message past the
 * limit (refused at its length prefix), gzip and deflate requests, `grpc-timeout` deadlines
 * (DEADLINE_EXCEEDED, and the handler hears it as a cancel), cancels by the client, trailers-only
 * answers for errors, and a graceful close (GOAWAY; open streams end UNAVAILABLE so clients
 * subscribe again elsewhere).
 * @module
 */
import {
  constants,
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type Http2Session,
  type IncomingHttpHeaders,
  type SecureServerOptions,
  type ServerHttp2Stream,
} from 'node:http2'
import type { GrpcCall, Undecodable } from './grpc-call.js'
import { encodeGrpcMessage, FrameError, frame, MessageReader, timeoutMs, unreadableEncoding } from './message-frames.js'
import { type GrpcError, GrpcStatus, plainError } from './grpc-status.js'

export interface GrpcRoute {
  /** Whether the answer is a server stream (such calls end UNAVAILABLE when the server closes). */
  streaming: boolean
  /** The request message's bytes as ProtoJSON, or why they are not one. */
  decode(bytes: Buffer): Record<string, unknown> | Undecodable
  encode(message: object): Buffer
  handle(call: GrpcCall): void
}

export interface GrpcServerOptions {
  /** The largest request message read, in bytes (after decompression). */
  maxReceiveMessageLength: number
  /** TLS (key, cert, …); without it the server speaks HTTP/2 in clear text, as gRPC clients dial `insecure` channels. */
  tls?: SecureServerOptions
}

const SHUTTING_DOWN = 'The server is shutting down: call again (SubscribeToTask follows a task from where it is)'

export class GrpcServer {
  readonly http2: Http2Server | Http2SecureServer
  readonly #routes: ReadonlyMap<string, GrpcRoute>
  readonly #maxLength: number
  /** Open sessions and their peers' addresses, read once per connection rather than per call. */
  readonly #sessions = new Map<Http2Session, string>()
  /** Calls not yet answered, so close() can end the streams among them. */
  readonly #open = new Set<ServerCall>()
  #closing: Promise<void> | undefined

  constructor(routes: ReadonlyMap<string, GrpcRoute>, options: GrpcServerOptions) {
    this.#routes = routes
    this.#maxLength = options.maxReceiveMessageLength
    // grpc-js lifts node's 10 MB cap on a session's buffered memory too: many streams on one connection are gRPC's normal case.
    const settings = { maxSessionMemory: Number.MAX_SAFE_INTEGER }
    this.http2 = options.tls ? createSecureServer({ ...settings, ...options.tls, allowHTTP1: false }) : createServer(settings)
    this.http2.on('session', (session) => {
      this.#sessions.set(session, session.socket?.remoteAddress ?? '')
      session.on('close', () => this.#sessions.delete(session))
      // A reset connection also closes the session; nothing else is owed to it.
      session.on('error', () => {})
    })
    this.http2.on('stream', (stream, headers) => this.#onStream(stream, headers))
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.http2.once('error', reject)
      // An IPv6 literal may come bracketed, as in a URL; listen() takes it bare.
      this.http2.listen(port, host.startsWith('[') ? host.slice(1, -1) : host, () => {
        this.http2.off('error', reject)
        const address = this.http2.address()
        resolve(typeof address === 'object' && address ? address.port : port)
      })
    })
  }

  /** Stops taking connections, ends open streams UNAVAILABLE, lets unary calls answer, and cuts what is left after `timeoutMs`. */
  close(timeoutMs: number): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      const closed = new Promise<void>((done) => this.http2.close(() => done()))
      for (const call of this.#open) if (call.streaming) call.shutDown()
      for (const session of this.#sessions.keys()) session.close()
      const timer = setTimeout(() => {
        for (const session of this.#sessions.keys()) session.destroy()
      }, timeoutMs)
      timer.unref()
      void closed.then(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.#closing
  }

  #onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    // Errors of a stream (a reset by the peer) also close it, which is where a call hears of it.
    stream.on('error', () => {})
    const contentType = headers['content-type']
    if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) {
      stream.respond({ ':status': 415, 'content-type': 'text/plain; charset=utf-8' })
      stream.end('This port serves gRPC: send content-type application/grpc (or application/grpc+proto) to /lf.a2a.v1.A2AService/<method>\n')
      return
    }
    const route = this.#routes.get(headers[':path']!)
    const call = new ServerCall(stream, headers, route, this.#sessions.get(stream.session!) ?? '', this.#open)
    if (this.#closing) return call.refuse(plainError(GrpcStatus.UNAVAILABLE, SHUTTING_DOWN))
    if (!route) return call.refuse(plainError(GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${headers[':path']}`))
    if (headers[':method'] !== 'POST') return call.refuse(plainError(GrpcStatus.UNIMPLEMENTED, `gRPC calls are POST; this one was ${headers[':method']}`))
    const encoding = headers['grpc-encoding'] as string | undefined
    const unreadable = unreadableEncoding(encoding)
    if (unreadable) return call.refuse(unreadable)
    const deadline = timeoutMs(headers['grpc-timeout'] as string | undefined)
    if (deadline !== undefined) call.expireAfter(deadline)
    const reader = new MessageReader(this.#maxLength, encoding)
    const onData = (chunk: Buffer) => {
      try {
        reader.push(chunk)
      } catch (error) {
        stream.off('data', onData)
        call.refuse(readError(error))
      }
    }
    stream.on('data', onData)
    stream.once('end', () => {
      if (call.answered) return
      try {
        reader.end()
      } catch (error) {
        return call.refuse(readError(error))
      }
      const count = reader.messages.length
      if (count !== 1) {
        return call.refuse(
          plainError(GrpcStatus.UNIMPLEMENTED, `Received ${count === 0 ? 'no request message' : 'a second request message'} for ${headers[':path']}, which takes one`),
        )
      }
      call.request = route.decode(reader.messages[0]!)
      route.handle(call)
    })
  }
}

function readError(error: unknown): GrpcError {
  if (error instanceof FrameError) return error.status
  return plainError(GrpcStatus.INTERNAL, 'The request could not be read')
}

const OK_TRAILERS = { 'grpc-status': '0', 'grpc-message': 'OK' }

/** One HTTP/2 stream as a {@link GrpcCall}. */
class ServerCall implements GrpcCall {
  request: Record<string, unknown> | Undecodable = {}
  readonly path: string
  readonly remoteAddress: string
  readonly streaming: boolean
  readonly #stream: ServerHttp2Stream
  readonly #headers: IncomingHttpHeaders
  readonly #route: GrpcRoute | undefined
  #metadata: Record<string, string> | undefined
  #responseHeaders: Record<string, string> | undefined
  #trailers: Record<string, string> = OK_TRAILERS
  /** Headers sent: the answer goes on as messages, then trailers. */
  #responded = false
  /** The status is decided (sent, or waiting for the messages before it); nothing more goes out. */
  answered = false
  #cancelled = false
  #onCancel: (() => void)[] | undefined
  #deadline: NodeJS.Timeout | undefined
  /** A PING sent at the last keep-alive beat and not answered yet. */
  #pingOutstanding = false

  constructor(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, route: GrpcRoute | undefined, remoteAddress: string, open: Set<ServerCall>) {
    this.#stream = stream
    this.#headers = headers
    this.#route = route
    this.path = headers[':path']!
    this.remoteAddress = remoteAddress
    this.streaming = route?.streaming ?? false
    open.add(this)
    stream.once('close', () => {
      open.delete(this)
      clearTimeout(this.#deadline)
      // Closed before its status went out: the client reset it, or the connection dropped.
      if (!this.answered) {
        this.answered = true
        this.#cancel()
      }
    })
  }

  get host(): string {
    return (this.#headers[':authority'] as string | undefined) ?? ''
  }

  /** Built once, on the gate's first read: the text headers, `host` the authority, as a resolver reads an HTTP request's. */
  get metadata(): Record<string, string> {
    if (this.#metadata) return this.#metadata
    const metadata: Record<string, string> = { host: this.host }
    for (const key of Object.keys(this.#headers)) {
      if (key.charCodeAt(0) === 58 /* : */ || key.endsWith('-bin')) continue
      const value = this.#headers[key]
      if (value !== undefined) metadata[key] = Array.isArray(value) ? value.join(', ') : value
    }
    return (this.#metadata = metadata)
  }

  setHeader(name: string, value: string): void {
    ;(this.#responseHeaders ??= {})[name] = value
  }

  reply(message: object): void {
    // A stream the client reset is destroyed before its close event tells the call.
    if (this.answered || this.#stream.destroyed) return
    const bytes = frame(this.#route!.encode(message))
    this.answered = true
    this.#respond()
    this.#stream.end(bytes)
  }

  write(message: object): void {
    if (this.answered || this.#stream.destroyed) return
    const bytes = frame(this.#route!.encode(message))
    this.#respond()
    this.#stream.write(bytes)
  }

  end(): void {
    this.#finish(OK_TRAILERS)
  }

  fail(error: GrpcError): void {
    this.#finish(statusTrailers(error))
  }

  /** A refusal before the request was read: answered at once, and the rest of the request is not taken in. */
  refuse(error: GrpcError): void {
    this.fail(error)
    if (!this.#stream.readableEnded) this.#stream.close(constants.NGHTTP2_NO_ERROR)
  }

  onCancel(listener: () => void): void {
    if (this.#cancelled) listener()
    else (this.#onCancel ??= []).push(listener)
  }

  /**
   * A PING on the caller's connection at each beat; one still unanswered at the next beat means the
   * peer is gone without closing (a dropped network, a frozen host), and the connection is cut, so
   * its streams end and give their seats back instead of waiting hours for TCP to notice.
   */
  keepAlive(): void {
    const session = this.#stream.session
    if (this.answered || !session || session.destroyed) return
    if (this.#pingOutstanding) return void session.destroy()
    // ping() refuses past the session's limit of PINGs in flight: another stream's PING is testing the connection then.
    this.#pingOutstanding = session.ping(() => {
      this.#pingOutstanding = false
    })
  }

  expireAfter(ms: number): void {
    this.#deadline = setTimeout(() => {
      this.fail(plainError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'))
      this.#cancel()
    }, ms)
    this.#deadline.unref()
  }

  /** The server is closing: a stream ends UNAVAILABLE, and its handler hears a cancel. */
  shutDown(): void {
    this.fail(plainError(GrpcStatus.UNAVAILABLE, SHUTTING_DOWN))
    this.#cancel()
  }

  get #headersOut(): Record<string, string> {
    // grpc-accept-encoding is sent only with a refused encoding: answers go uncompressed, and it would cost every call a header.
    const headers: Record<string, string> = { ':status': '200', 'content-type': 'application/grpc' }
    return this.#responseHeaders ? Object.assign(headers, this.#responseHeaders) : headers
  }

  #respond(): void {
    if (this.#responded) return
    this.#responded = true
    this.#stream.respond(this.#headersOut, { waitForTrailers: true })
    this.#stream.once('wantTrailers', () => this.#stream.sendTrailers(this.#trailers))
  }

  #finish(trailers: Record<string, string>): void {
    if (this.answered) return
    this.answered = true
    clearTimeout(this.#deadline)
    if (this.#stream.destroyed || this.#stream.closed) return
    if (this.#responded) {
      this.#trailers = trailers
      this.#stream.end()
    } else {
      // Trailers-only: the status goes in the one HEADERS frame, which ends the stream.
      this.#stream.respond(Object.assign(this.#headersOut, trailers), { endStream: true })
    }
  }

  #cancel(): void {
    if (this.#cancelled) return
    this.#cancelled = true
    for (const listener of this.#onCancel?.splice(0) ?? []) listener()
  }
}

function statusTrailers(error: GrpcError): Record<string, string> {
  return { ...error.trailers, 'grpc-status': String(error.code), 'grpc-message': encodeGrpcMessage(error.message) }
}
