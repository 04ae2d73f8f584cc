/**
 * A refusal that stays at the transport level: an HTTP status (401, 403, 413, 415, 429) on either
 * binding, with the wire error its body carries and any headers the status calls for.
 * @module
 */
import type { A2AError } from '../wire/a2a-error.js'

export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: A2AError,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message)
    this.name = 'HttpRefusal'
  }
}
