/**
 * Errors on the gRPC binding (specification section 10.6): the status code section 5.4 maps each
 * error to, its message, and a `google.rpc.Status` in the `grpc-status-details-bin` trailer whose
 * details are the same ErrorInfo (the A2A reason) and BadRequest the other bindings carry. The code
 * and details come from the HTTP+JSON binding's mapping, so the two can never disagree.
 * @module
 */
import { HttpRefusal } from '../core/http-refusal.js'
import { restErrorBody, restStatus } from '../rest/rest-errors.js'
import { A2AError } from '../wire/a2a-error.js'
import { codecOf } from './codec.js'
import { type GrpcCode, type GrpcError, GrpcStatus } from './grpc-status.js'

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin'

/** Refusals whose transport status says more than the error's reason: a resolver's 503 is the database, not the request. */
const REFUSAL_CODES: Record<number, GrpcCode> = { 503: GrpcStatus.UNAVAILABLE, 429: GrpcStatus.RESOURCE_EXHAUSTED }

export function grpcError(error: A2AError, httpStatus = restStatus(error), headers: Record<string, string> = {}): GrpcError {
  const body = restErrorBody(error, httpStatus).error
  const code = REFUSAL_CODES[httpStatus] ?? GrpcStatus[body.status as keyof typeof GrpcStatus] ?? GrpcStatus.UNKNOWN
  const details = body.details.map(({ '@type': typeUrl, ...detail }) => ({
    type_url: typeUrl,
    value: codecOf(String(typeUrl).slice(String(typeUrl).lastIndexOf('/') + 1)).encode(detail),
  }))
  const trailers: Record<string, string> = {}
  // A refusal's own headers (a quota's Retry-After) go in the trailers, lowercase as gRPC has them.
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'connection') trailers[name.toLowerCase()] = value
  trailers[STATUS_DETAILS_KEY] = codecOf('google.rpc.Status').encode({ code, message: body.message, details }).toString('base64')
  return { code, message: body.message, trailers }
}

/** Anything a call can throw, as its gRPC status: a local error is INTERNAL without its text (logged by the caller). */
export function toGrpcError(error: unknown): GrpcError {
  if (error instanceof HttpRefusal) return grpcError(error.error, error.status, error.headers)
  if (error instanceof A2AError) return grpcError(error)
  return grpcError(A2AError.internal())
}
