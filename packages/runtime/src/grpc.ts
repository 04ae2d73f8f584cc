/**
 * `@a2a-agent/runtime/grpc`: the gRPC binding (A2A v1.0, section 10) of an exchange. `serveGrpc`
 * runs it on the runtime's own gRPC server (node:http2, no grpc-js); `a2aServiceDefinition` and
 * `a2aServiceHandlers` mount the same service on a grpc-js Server an app already runs.
 * @module
 */
export { serveGrpc, type GrpcBinding, type ServeGrpcOptions } from './grpc/serve-grpc.js'
export { a2aServiceDefinition, a2aServiceHandlers, type GrpcServiceOptions } from './grpc/grpc-service.js'
export { grpcError, STATUS_DETAILS_KEY } from './grpc/grpc-errors.js'
export { GrpcStatus, type GrpcCode, type GrpcError } from './grpc/grpc-status.js'
