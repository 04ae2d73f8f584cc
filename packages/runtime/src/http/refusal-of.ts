/**
 * Which failures a binding answers at the transport level rather than as its own error.
 * @module
 */
import { HttpRefusal } from '../core/http-refusal.js'
import { isStoreUnavailable, RETRY_AFTER_SECONDS, storeUnavailable } from '../store/unavailable.js'
import { A2AError } from '../wire/a2a-error.js'

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
