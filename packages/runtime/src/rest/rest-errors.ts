/**
 * Errors on the HTTP+JSON binding: the HTTP status of the specification's mapping table (section
 * 5.4) and a `google.rpc.Status` body (AIP-193) whose details carry the same ErrorInfo and
 * BadRequest the JSON-RPC binding puts in `error.data`.
 * @module
 */
import type { A2AError, A2AErrorReason } from '../wire/a2a-error.js'

/** HTTP status and google.rpc.Code name of each wire error, as section 5.4 pairs them. */
const MAPPING: Record<A2AErrorReason, [number, string]> = {
  PARSE_ERROR: [400, 'INVALID_ARGUMENT'],
  INVALID_REQUEST: [400, 'INVALID_ARGUMENT'],
  METHOD_NOT_FOUND: [404, 'NOT_FOUND'],
  INVALID_PARAMS: [400, 'INVALID_ARGUMENT'],
  INTERNAL: [500, 'INTERNAL'],
  TASK_NOT_FOUND: [404, 'NOT_FOUND'],
  TASK_NOT_CANCELABLE: [409, 'FAILED_PRECONDITION'],
  PUSH_NOTIFICATION_NOT_SUPPORTED: [400, 'UNIMPLEMENTED'],
  UNSUPPORTED_OPERATION: [400, 'UNIMPLEMENTED'],
  CONTENT_TYPE_NOT_SUPPORTED: [415, 'INVALID_ARGUMENT'],
  INVALID_AGENT_RESPONSE: [502, 'INTERNAL'],
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: [400, 'FAILED_PRECONDITION'],
  EXTENSION_SUPPORT_REQUIRED: [400, 'FAILED_PRECONDITION'],
  VERSION_NOT_SUPPORTED: [400, 'UNIMPLEMENTED'],
  UNAUTHENTICATED: [401, 'UNAUTHENTICATED'],
  UNAVAILABLE: [503, 'UNAVAILABLE'],
}

/** google.rpc.Code names of the transport refusals' statuses. */
const CODE_OF_STATUS: Record<number, string> = {
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
}

export const restStatus = (error: A2AError): number => MAPPING[error.reason][0]

export interface RestErrorBody {
  error: { code: number; status: string; message: string; details: Record<string, unknown>[] }
}

/**
 * The body of an error answered with `status` (the mapped one unless a transport refusal chose
 * another). Field paths lose the JSON-RPC `params.` prefix: here they start at the request body
 * or query.
 */
export function restErrorBody(error: A2AError, status = restStatus(error)): RestErrorBody {
  const code = status === restStatus(error) ? MAPPING[error.reason][1] : (CODE_OF_STATUS[status] ?? MAPPING[error.reason][1])
  const details = error
    .details()
    .map((detail) =>
      Array.isArray(detail.fieldViolations)
        ? { ...detail, fieldViolations: (detail.fieldViolations as { field: string; description: string }[]).map((v) => ({ ...v, field: unprefixed(v.field) })) }
        : detail,
    )
  return { error: { code: status, status: code, message: unprefixed(error.message), details } }
}

const unprefixed = (text: string): string => text.replace(/\bparams\./g, '')
