/**
 * gRPC's status codes (grpc/doc/statuscodes.md), by the names the specification's error mapping
 * (section 5.4) and google.rpc.Code use.
 * @module
 */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const

export type GrpcCode = (typeof GrpcStatus)[keyof typeof GrpcStatus]

/** A call's end other than OK: its code, its message, and trailers beside them (status details, a quota's retry-after). */
export interface GrpcError {
  code: GrpcCode
  message: string
  trailers: Record<string, string>
}

/** A status without details, for the transport's own refusals (an unknown method, a message past the limit). */
export const plainError = (code: GrpcCode, message: string): GrpcError => ({ code, message, trailers: {} })
