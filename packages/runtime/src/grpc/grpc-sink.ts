/**
 * A task stream's events on a gRPC server stream: each StreamResponse one message, the end an OK
 * status, a failure after the first event the error's status. Keep-alives are HTTP/2 PINGs on the
 * caller's connection (the call's own keepAlive), beside the caller's recheck.
 * @module
 */
import { notifyClosed as close, type Closer, type EventSink } from '../stream/sse-writer.js'
import type { A2AError } from '../wire/a2a-error.js'
import type { StreamResponse } from '../wire/types.js'
import type { GrpcCall } from './grpc-call.js'
import { grpcError } from './grpc-errors.js'

export class GrpcSink implements EventSink {
  #open = true
  readonly #closers: Closer[] = []
  readonly #call: GrpcCall

  constructor(call: GrpcCall) {
    this.#call = call
    // The client went away (or its deadline passed, or the server is closing): the seat and the follow end with it.
    call.onCancel(() => this.#finish())
  }

  get open(): boolean {
    return this.#open
  }

  onClose(closer: Closer): void {
    if (this.#open) this.#closers.push(closer)
    else close(closer)
  }

  send(result: StreamResponse): void {
    if (this.#open) this.#call.write(result)
  }

  /** The event every stream of a task shares, encoded once as JSON for SSE; here it is read back, to be encoded as protobuf. */
  sendEncoded(resultJson: string): void {
    if (this.#open) this.#call.write(JSON.parse(resultJson))
  }

  keepAlive(): void {
    if (this.#open) this.#call.keepAlive()
  }

  fail(error: A2AError): void {
    if (!this.#open) return
    this.#call.fail(grpcError(error))
    this.#finish()
  }

  close(): void {
    if (!this.#open) return
    this.#call.end()
    this.#finish()
  }

  #finish(): void {
    if (!this.#open) return
    this.#open = false
    for (const closer of this.#closers.splice(0)) close(closer)
  }
}
