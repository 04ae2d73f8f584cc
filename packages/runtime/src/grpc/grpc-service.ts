/**
 * The A2AService of the specification (section 10), every method from the exchange's one method
 * table: a call is admitted by the gate (metadata credentials, A2A-Version, A2A-Extensions), its
 * decoded request is the method's params as JSON-RPC and HTTP+JSON pass them, and its answer is
 * encoded from the same result. Streaming methods answer a server stream. The handlers take a
 * {@link GrpcCall}, so the same ones serve on the runtime's gRPC server (serveGrpc) and, through
 * `a2aServiceHandlers`, on a grpc-js Server.
 * @module
 */
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { Exchange } from '../exchange/exchange.js'
import { StreamReply } from '../methods/streaming.js'
import type { GateOptions } from '../http/gate.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { scrub } from '../log/logger.js'
import { A2AError } from '../wire/a2a-error.js'
import { codecOf, type MethodShape, SERVICE, serviceMethods } from './codec.js'
import { type GrpcCall, Undecodable } from './grpc-call.js'
import { admitCall } from './grpc-gate.js'
import { toGrpcError } from './grpc-errors.js'
import { GrpcJsStreamCall, GrpcJsUnaryCall } from './grpc-js-calls.js'
import type { GrpcRoute } from './grpc-server.js'
import { GrpcSink } from './grpc-sink.js'

export interface GrpcServiceOptions extends GateOptions {
  call: Exchange['call']
}

/** The service's routes by path, for the runtime's gRPC server. */
export function a2aRoutes(options: GrpcServiceOptions): Map<string, GrpcRoute> {
  return new Map(
    serviceMethods().map((method) => {
      const response = codecOf(method.response)
      const route: GrpcRoute = {
        streaming: method.streaming,
        decode: requestDecoder(method),
        encode: (message) => response.encode(message),
        handle: handlerOf(options, method),
      }
      return [`/${SERVICE}/${method.name}`, route]
    }),
  )
}

/** grpc-js's definition of the A2AService (paths, streaming flags, the ProtoJSON codecs): for grpc-js clients, and servers with {@link a2aServiceHandlers}. */
export function a2aServiceDefinition(): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {}
  for (const method of serviceMethods()) {
    const request = codecOf(method.request)
    const response = codecOf(method.response)
    definition[method.name] = {
      path: `/${SERVICE}/${method.name}`,
      requestStream: false,
      responseStream: method.streaming,
      requestSerialize: (value: object) => request.encode(value),
      requestDeserialize: requestDecoder(method),
      responseSerialize: (value: object) => response.encode(value),
      responseDeserialize: (bytes: Buffer) => response.decode(bytes),
    }
  }
  return definition
}

/** The handlers of {@link a2aServiceDefinition} on a grpc-js Server, keyed as it is. */
export function a2aServiceHandlers(options: GrpcServiceOptions): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {}
  for (const method of serviceMethods()) {
    const handle = handlerOf(options, method)
    handlers[method.name] = method.streaming
      ? (call: ServerWritableStream<unknown, unknown>) => handle(new GrpcJsStreamCall(call))
      : (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => handle(new GrpcJsUnaryCall(call, callback))
  }
  return handlers
}

/** The method's request message from its bytes, or why they are not one: answered INVALID_ARGUMENT once the caller is admitted. */
function requestDecoder(method: MethodShape): (bytes: Buffer) => Record<string, unknown> | Undecodable {
  const request = codecOf(method.request)
  return (bytes) => {
    try {
      return request.decode(bytes)
    } catch (error) {
      return new Undecodable(`${method.request} did not decode: ${(error as Error).message}`)
    }
  }
}

function handlerOf(options: GrpcServiceOptions, method: MethodShape): (call: GrpcCall) => Promise<void> {
  if (!method.streaming) {
    return async (call) => {
      try {
        const result = await invoke(options, method.name, call)
        // DeleteTaskPushNotificationConfig answers nothing: google.protobuf.Empty.
        call.reply((result as object | undefined) ?? {})
      } catch (error) {
        call.fail(answered(options, method.name, error))
      }
    }
  }
  return async (call) => {
    try {
      const reply = await invoke(options, method.name, call)
      if (!(reply instanceof StreamReply)) throw new Error(`${method.name} answered no stream`)
      reply.start(new GrpcSink(call))
    } catch (error) {
      call.fail(answered(options, method.name, error))
    }
  }
}

async function invoke(options: GrpcServiceOptions, method: string, call: GrpcCall): Promise<unknown> {
  const { principal, reresolve } = await admitCall(options, call)
  // Checked after the caller is known, as the HTTP bindings read no body before that.
  if (call.request instanceof Undecodable) throw A2AError.parse(call.request.reason)
  return options.call(principal, method, call.request, reresolve, options.publicUrl)
}

/** The status a failed call ends with; a local error is logged, and answered INTERNAL without its text. */
function answered(options: GrpcServiceOptions, method: string, error: unknown) {
  if (!(error instanceof A2AError) && !(error instanceof HttpRefusal)) {
    options.logger.error(`a2a: internal error answering gRPC ${method}: ${scrub(error)}`)
  }
  return toGrpcError(error)
}
