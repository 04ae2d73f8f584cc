/**
 * The one error type that crosses the wire: a JSON-RPC code plus the `google.rpc.ErrorInfo` reason
 * A2A v1.0 attaches to every error. Anything else thrown inside the runtime is a local error and is
 * answered as -32603 without its text.
 * @module
 */

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo'
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest'
export const ERROR_DOMAIN = 'a2a-protocol.org'
export const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo'
/** The domain of the reasons this runtime adds (UNAVAILABLE): the specification defines none for a retryable failure. */
export const RUNTIME_ERROR_DOMAIN = '@a2a-agent/runtime'

/** Field violations one error lists; the rest are counted, so an error stays small whatever was sent. */
export const MAX_LISTED_VIOLATIONS = 16

const CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  EXTENSION_SUPPORT_REQUIRED: -32008,
  VERSION_NOT_SUPPORTED: -32009,
  UNAUTHENTICATED: -31401,
  // Outside both reserved ranges, beside -31401 and like it named after its HTTP status.
  UNAVAILABLE: -31503,
} as const

export type A2AErrorReason = keyof typeof CODES

/**
 * The A2A-specific errors of the specification (section 3.3.2), whose ErrorInfo reasons it
 * defines. Standard JSON-RPC errors and -31401 are told by their code alone and carry no ErrorInfo:
 * only reasons the specification defines ever reach a client.
 */
const SPEC_REASONS: ReadonlySet<A2AErrorReason> = new Set([
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'INVALID_AGENT_RESPONSE',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
  'VERSION_NOT_SUPPORTED',
])

export interface FieldViolation {
  field: string
  description: string
}

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: Record<string, unknown>[]
}

export class A2AError extends Error {
  readonly code: number
  readonly reason: A2AErrorReason
  /** ErrorInfo metadata; on the wire only with a reason the specification defines. */
  readonly metadata: Record<string, string> | undefined
  readonly fieldViolations: FieldViolation[] | undefined

  constructor(reason: A2AErrorReason, message: string, options: { metadata?: Record<string, string>; fieldViolations?: FieldViolation[] } = {}) {
    super(message)
    this.name = 'A2AError'
    this.reason = reason
    this.code = CODES[reason]
    this.metadata = options.metadata
    this.fieldViolations = options.fieldViolations
  }

  /** The `google.protobuf.Any` details both bindings carry: ErrorInfo, then BadRequest's field violations. */
  details(): Record<string, unknown>[] {
    const details: Record<string, unknown>[] = []
    if (SPEC_REASONS.has(this.reason)) {
      details.push({ '@type': ERROR_INFO_TYPE, reason: this.reason, domain: ERROR_DOMAIN, ...(this.metadata ? { metadata: this.metadata } : {}) })
    }
    if (this.reason === 'UNAVAILABLE') {
      // The runtime's own reason, and when to try again: `retryAfter` seconds, as the Retry-After header says.
      details.push({ '@type': ERROR_INFO_TYPE, reason: this.reason, domain: RUNTIME_ERROR_DOMAIN, ...(this.metadata ? { metadata: this.metadata } : {}) })
      if (this.metadata?.retryAfter) details.push({ '@type': RETRY_INFO_TYPE, retryDelay: `${this.metadata.retryAfter}s` })
    }
    if (this.fieldViolations?.length) details.push({ '@type': BAD_REQUEST_TYPE, fieldViolations: this.fieldViolations })
    return details
  }

  toJSON(): JsonRpcErrorObject {
    const data = this.details()
    return { code: this.code, message: this.message, ...(data.length ? { data } : {}) }
  }

  static parse(detail: string): A2AError {
    return new A2AError('PARSE_ERROR', `Invalid JSON payload: ${detail}`)
  }

  static invalidRequest(message: string): A2AError {
    return new A2AError('INVALID_REQUEST', message)
  }

  static unauthenticated(message: string): A2AError {
    return new A2AError('UNAUTHENTICATED', message)
  }

  /**
   * -32602 naming the offending field path, e.g. `message.parts[0].text`. At most
   * {@link MAX_LISTED_VIOLATIONS} violations are listed; the rest (`omitted` included) are counted
   * in the message and in the ErrorInfo metadata as `omittedViolations`.
   */
  static invalidParams(field: string, description: string, more: FieldViolation[] = [], omitted = 0): A2AError {
    const all = [{ field, description }, ...more.filter((v) => v.field !== field || v.description !== description)]
    const listed = all.slice(0, MAX_LISTED_VIOLATIONS)
    const unlisted = omitted + all.length - listed.length
    return new A2AError('INVALID_PARAMS', `Invalid params: ${field}: ${description}${unlisted ? ` (and ${unlisted} more violations)` : ''}`, {
      metadata: { field, ...(unlisted ? { omittedViolations: String(unlisted) } : {}) },
      fieldViolations: listed,
    })
  }

  static methodNotFound(method: string, hint?: string): A2AError {
    return new A2AError('METHOD_NOT_FOUND', `Method not found: ${method}${hint ? `. ${hint}` : ''}`, {
      metadata: { method },
    })
  }

  static taskNotFound(taskId: string): A2AError {
    return new A2AError('TASK_NOT_FOUND', `Task not found: ${taskId}`, { metadata: { taskId } })
  }

  static unsupported(message: string): A2AError {
    return new A2AError('UNSUPPORTED_OPERATION', message)
  }

  /**
   * -31503: the agent could not reach what it needs (its database) and the same request sent again
   * after `retryAfterSeconds` may well succeed. Both bindings answer it with HTTP 503 and Retry-After.
   */
  static unavailable(message: string, retryAfterSeconds: number): A2AError {
    return new A2AError('UNAVAILABLE', message, { metadata: { retryAfter: String(retryAfterSeconds) } })
  }

  static internal(): A2AError {
    return new A2AError('INTERNAL', 'Internal error')
  }
}

export const isA2AError = (error: unknown): error is A2AError => error instanceof A2AError
