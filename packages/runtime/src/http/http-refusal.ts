/**
 * A refusal that stays at the transport level: an HTTP status (401, 403, 413, 415, 429) whose body
 * still carries a JSON-RPC error for clients that read it.
 * @module
 */

export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'HttpRefusal'
  }
}
