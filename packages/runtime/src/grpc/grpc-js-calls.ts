/**
 * grpc-js's server calls as {@link GrpcCall}s, for `a2aServiceHandlers`: the A2AService mounted on
 * a grpc-js Server an app already runs. Metadata objects are made with the class of the call's own
 * metadata, so this module loads no grpc-js of its own (serveGrpc needs none), and grpc-js meets
 * only objects of its own copy.
 * @module
 */
import type { Metadata, sendUnaryData, ServerUnaryCall, ServerWritableStream, StatusObject } from '@grpc/grpc-js'
import type { GrpcCall } from './grpc-call.js'
import type { GrpcError } from './grpc-status.js'

type Call = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>

abstract class GrpcJsCall implements GrpcCall {
  readonly path: string
  readonly request: GrpcCall['request']
  readonly metadata: Readonly<Record<string, string>>
  readonly host: string
  readonly remoteAddress: string
  #headers: Metadata | undefined
  #headersSent = false

  constructor(protected readonly call: Call) {
    this.path = call.getPath()
    this.request = call.request as GrpcCall['request']
    this.host = call.getHost()
    const metadata: Record<string, string> = { host: this.host }
    for (const [key, value] of Object.entries(call.metadata.getMap())) if (typeof value === 'string') metadata[key] = value
    this.metadata = metadata
    const peer = call.getPeer()
    this.remoteAddress = peer.startsWith('[') ? peer.slice(1, peer.indexOf(']')) : peer.slice(0, peer.lastIndexOf(':'))
  }

  setHeader(name: string, value: string): void {
    ;(this.#headers ??= this.newMetadata()).set(name, value)
  }

  onCancel(listener: () => void): void {
    if (this.call.cancelled) listener()
    else this.call.on('cancelled', listener)
  }

  /** grpc-js keeps connections alive by its own options (`grpc.keepalive_time_ms`). */
  keepAlive(): void {}

  abstract reply(message: object): void
  abstract write(message: object): void
  abstract end(): void
  abstract fail(error: GrpcError): void

  protected sendHeaders(): void {
    if (this.#headersSent || !this.#headers) return
    this.#headersSent = true
    this.call.sendMetadata(this.#headers)
  }

  protected status(error: GrpcError): Partial<StatusObject> {
    const metadata = this.newMetadata()
    for (const [key, value] of Object.entries(error.trailers)) {
      if (key.endsWith('-bin')) metadata.set(key, Buffer.from(value, 'base64'))
      else metadata.set(key, value)
    }
    return { code: error.code, details: error.message, metadata }
  }

  private newMetadata(): Metadata {
    return new (this.call.metadata.constructor as new () => Metadata)()
  }
}

export class GrpcJsUnaryCall extends GrpcJsCall {
  constructor(
    call: ServerUnaryCall<unknown, unknown>,
    private readonly callback: sendUnaryData<unknown>,
  ) {
    super(call)
  }

  reply(message: object): void {
    this.sendHeaders()
    this.callback(null, message)
  }

  write(): void {
    throw new Error(`${this.path} answers one message, not a stream`)
  }

  end(): void {
    throw new Error(`${this.path} answers one message, not a stream`)
  }

  fail(error: GrpcError): void {
    this.sendHeaders()
    this.callback(this.status(error))
  }
}

export class GrpcJsStreamCall extends GrpcJsCall {
  declare protected readonly call: ServerWritableStream<unknown, unknown>

  reply(): void {
    throw new Error(`${this.path} answers a stream`)
  }

  write(message: object): void {
    this.sendHeaders()
    this.call.write(message)
  }

  end(): void {
    this.sendHeaders()
    this.call.end()
  }

  fail(error: GrpcError): void {
    this.sendHeaders()
    this.call.emit('error', this.status(error))
  }
}
