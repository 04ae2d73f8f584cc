/**
 * One call as the A2AService handlers see it, whichever server carries it: the runtime's own
 * (grpc-server.ts) or a grpc-js Server the app runs (grpc-js-calls.ts). Messages go in and out as
 * ProtoJSON objects; the carrier encodes them.
 * @module
 */
import type { GrpcError } from './grpc-status.js'

/** A request that did not decode: answered INVALID_ARGUMENT once the caller is admitted, not INTERNAL. */
export class Undecodable {
  constructor(readonly reason: string) {}
}

export interface GrpcCall {
  /** `/lf.a2a.v1.A2AService/SendMessage` */
  readonly path: string
  /** The decoded request message, or why it did not decode. */
  readonly request: Record<string, unknown> | Undecodable
  /**
   * Text metadata by lowercase key (`authorization`, `a2a-version`), binary (`-bin`) keys left out,
   * with `host` the authority dialled: what a resolver reads as an HTTP request's headers.
   */
  readonly metadata: Readonly<Record<string, string>>
  /** The `:authority` the caller dialled. */
  readonly host: string
  /** The caller's IP address. */
  readonly remoteAddress: string
  /** Adds a header to the response's headers (or to a trailers-only answer's one block). */
  setHeader(name: string, value: string): void
  /** A unary call's answer, then OK. */
  reply(message: object): void
  /** One message of a server stream. */
  write(message: object): void
  /** Ends a server stream with OK. */
  end(): void
  fail(error: GrpcError): void
  /** The caller went away, its deadline passed, or the server closed the call: nothing more reaches it. */
  onCancel(listener: () => void): void
  /** A stream's keep-alive beat: the carrier checks that the caller's connection still answers. */
  keepAlive(): void
}
