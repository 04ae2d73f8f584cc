/**
 * `@a2a-agent/runtime/grpc`: the gRPC binding (A2A v1.0, section 10) of an exchange. Its own entry
 * because it loads `@grpc/grpc-js` (an optional peer dependency), which apps without gRPC never do.
 * @module
 */
export { serveGrpc, type GrpcBinding, type ServeGrpcOptions } from './grpc/serve-grpc.js'
export { a2aServiceDefinition, a2aServiceHandlers, type GrpcServiceOptions } from './grpc/grpc-service.js'
export { grpcError, STATUS_DETAILS_KEY } from './grpc/grpc-errors.js'
