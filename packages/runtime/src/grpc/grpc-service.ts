/**
 * The A2AService of the specification (section 10) on grpc-js, every method from the exchange's
 * one method table: a call is admitted by the gate (metadata credentials, A2A-Version,
 * A2A-Extensions), its decoded request is the method's params as JSON-RPC and HTTP+JSON pass them,
 * and its answer is encoded from the same result. Streaming methods answer a server stream.
 * @module
 */
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js'
import type { Exchange } from '../exchange/exchange.js'
import { StreamReply } from '../methods/streaming.js'
import type { GateOptions } from '../http/gate.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { scrub } from '../log/logger.js'
import { A2AError } from '../wire/a2a-error.js'
import { codecOf, SERVICE, serviceMethods } from './codec.js'
import { admitCall } from './grpc-gate.js'
import { toGrpcError } from './grpc-errors.js'
import { GrpcSink } from './grpc-sink.js'

export interface GrpcServiceOptions extends GateOptions {
  call: Exchange['call']
}

/** A request that did not decode: answered INVALID_ARGUMENT by its handler, not INTERNAL by grpc-js. */
class Undecodable {
  constructor(readonly reason: string) {}
}

/** grpc-js's definition of the A2AService: paths, streaming flags and the ProtoJSON codecs. */
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
      requestDeserialize: (bytes: Buffer) => {
        try {
          return request.decode(bytes)
        } catch (error) {
          return new Undecodable(`${method.request} did not decode: ${(error as Error).message}`)
        }
      },
      responseSerialize: (value: object) => response.encode(value),
      responseDeserialize: (bytes: Buffer) => response.decode(bytes),
    }
  }
  return definition
}

/** The handlers of {@link a2aServiceDefinition}, keyed as it is. */
export function a2aServiceHandlers(options: GrpcServiceOptions): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {}
  for (const method of serviceMethods()) {
    handlers[method.name] = method.streaming ? streamHandler(options, method.name) : unaryHandler(options, method.name)
  }
  return handlers
}

function unaryHandler(options: GrpcServiceOptions, method: string) {
  return async (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): Promise<void> => {
    try {
      const result = await invoke(options, method, call)
      // DeleteTaskPushNotificationConfig answers nothing: google.protobuf.Empty.
      callback(null, result ?? {})
    } catch (error) {
      callback(answered(options, method, error))
    }
  }
}

function streamHandler(options: GrpcServiceOptions, method: string) {
  return async (call: ServerWritableStream<unknown, unknown>): Promise<void> => {
    try {
      const reply = await invoke(options, method, call)
      if (!(reply instanceof StreamReply)) throw new Error(`${method} answered no stream`)
      reply.start(new GrpcSink(call))
    } catch (error) {
      call.emit('error', answered(options, method, error))
    }
  }
}

async function invoke(options: GrpcServiceOptions, method: string, call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>): Promise<unknown> {
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
