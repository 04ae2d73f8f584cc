/**
 * A refusal that stays at the transport level: an HTTP status (401, 403, 413, 415, 429, 503) on
 * either binding, with the wire error its body carries and any headers the status calls for.
 * @module
 */
import { isStoreUnavailable, RETRY_AFTER_SECONDS, storeUnavailable } from '../store/unavailable.js'
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
  static unavailable(message: string, retryAfterSeconds = RETRY_AFTER_SECONDS): HttpRefusal {
    return new HttpRefusal(503, A2AError.unavailable(message, retryAfterSeconds), { 'Retry-After': String(retryAfterSeconds) })
  }
}

/**
 * The transport refusal a failure stands for, or undefined for one that is the binding's to answer:
 * a refusal as thrown, an UNAVAILABLE error as 503, and a store that could not be reached (a cut
 * PostgreSQL connection, SQLite busy) as 503 with Retry-After rather than an internal error.
 */
export function refusalOf(error: unknown): HttpRefusal | undefined {
  if (error instanceof HttpRefusal) return error
  if (error instanceof A2AError) {
    if (error.reason !== 'UNAVAILABLE') return undefined
    return new HttpRefusal(503, error, { 'Retry-After': error.metadata?.retryAfter ?? String(RETRY_AFTER_SECONDS) })
  }
  if (isStoreUnavailable(error)) return refusalOf(storeUnavailable())
  return undefined
}
