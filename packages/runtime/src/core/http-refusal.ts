/**
 * A refusal that stays at the transport level: an HTTP status (401, 403, 413, 415, 429, 503) on
 * either binding, with the wire error its body carries and any headers the status calls for.
 * Which failures a binding answers this way is http/refusal-of.ts's to say: it knows the store's.
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'

export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: A2AError,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message)
    this.name = 'HttpRefusal'
  }

  /** HTTP 503 with Retry-After and -31503 (UNAVAILABLE): the same request, sent again then, may succeed. */
  static unavailable(message: string, retryAfterSeconds: number): HttpRefusal {
    return new HttpRefusal(503, A2AError.unavailable(message, retryAfterSeconds), { 'Retry-After': String(retryAfterSeconds) })
  }
}
