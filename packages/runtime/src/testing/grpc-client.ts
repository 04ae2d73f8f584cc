/**
 * The {@link BindingClient} of the gRPC binding, so suites written for JSON-RPC and HTTP+JSON run
 * over gRPC too: a grpc-js client on the A2AService definition (the runtime's ProtoJSON codecs),
 * metadata for headers (`authorization`, `a2a-version`). A reply's `status` is the gRPC status code
 * (0 for OK), its body `{ error: { code, message, details } }` with the details decoded from
 * `grpc-status-details-bin`; a stream's events carry each StreamResponse as `data`. Loaded only by
 * a test server started with `grpc: true`, so the testing entry does not load grpc-js.
 * @module
 */
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js'
import { a2aRoot, codecOf, serviceMethods } from '../grpc/codec.js'
import { a2aServiceDefinition } from '../grpc/grpc-service.js'
import { STATUS_DETAILS_KEY } from '../grpc/grpc-errors.js'
import { ERROR_INFO_TYPE } from '../wire/a2a-error.js'
import type { BindingClient, CallOptions, WireCheck, WireReply } from './binding-client.js'
import type { SseEvent, SseReply } from './sse-client.js'

type Definition = ReturnType<typeof a2aServiceDefinition>

export function grpcBindingClient(address: string, token: string, check?: WireCheck): BindingClient & { close(): void } {
  const definition: Definition = a2aServiceDefinition()
  const client = new Client(address, credentials.createInsecure())
  const metadataFor = (options: CallOptions = {}) => {
    const metadata = new Metadata()
    const bearer = options.token ?? token
    if (bearer) metadata.set('authorization', `Bearer ${bearer}`)
    metadata.set('a2a-version', '1.0')
    for (const [key, value] of Object.entries(options.headers ?? {})) {
      if (value === '') metadata.remove(key.toLowerCase())
      else metadata.set(key.toLowerCase(), value)
    }
    return metadata
  }
  const responses = new Map(serviceMethods().map((method) => [method.name, method.response]))
  const methodOf = (method: string) => {
    const shape = definition[method]
    if (!shape) throw new Error(`The A2AService has no method ${method}`)
    const response = responses.get(method)!
    return { ...shape, responseDeserialize: (bytes: Buffer) => withDefaults(response, shape.responseDeserialize(bytes) as Record<string, unknown>) }
  }
  const unary = (method: string, request: unknown, options?: CallOptions, raw = false): Promise<WireReply> => {
    const shape = methodOf(method)
    return new Promise((resolve) => {
      const headers = new Headers()
      const serialize = (raw ? (bytes: Buffer) => bytes : shape.requestSerialize) as (value: unknown) => Buffer
      const call = client.makeUnaryRequest<unknown, unknown>(shape.path, serialize, shape.responseDeserialize, request, metadataFor(options), (error, result) =>
        resolve(error ? errorReply(error, headers) : { status: 0, headers, body: result, result, error: undefined }),
      )
      call.on('metadata', (metadata: Metadata) => copyInto(headers, metadata))
    })
  }
  const bindingClient: BindingClient & { close(): void } = {
    binding: 'GRPC',
    async call(method, params = {}, options) {
      const reply = await unary(method, params, options)
      if (!reply.error) check?.result(method, reply.result)
      return reply
    },
    async result(method, params, options) {
      const reply = await bindingClient.call(method, params, options)
      if (reply.error) throw new Error(`${method} over GRPC failed: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.result
    },
    stream(method, params = {}, options) {
      const shape = methodOf(method)
      return openStream(client.makeServerStreamRequest(shape.path, shape.requestSerialize, shape.responseDeserialize, params, metadataFor(options)))
    },
    eventResult(event) {
      check?.event(event.data)
      return event.data
    },
    sendRaw(body, headers) {
      return unary('SendMessage', Buffer.from(body), { headers: headers ?? {} }, true)
    },
    close: () => client.close(),
  }
  return bindingClient
}

/**
 * The answer's top-level fields as a proto3 reader has them: protobuf carries no zero values, so
 * ListTasks' `totalSize: 0` and an empty `tasks` arrive as nothing, and read as 0 and [] (what
 * the HTTP bindings send, and what the official SDK's decoder yields).
 */
function withDefaults(typeName: string, answer: Record<string, unknown>): Record<string, unknown> {
  for (const field of a2aRoot().lookupType(typeName).fieldsArray) {
    if (answer[field.name] !== undefined || field.partOf) continue
    if (field.repeated) answer[field.name] = []
    else if (field.type === 'string') answer[field.name] = ''
    else if (field.type === 'int32') answer[field.name] = 0
  }
  return answer
}

function copyInto(headers: Headers, metadata: Metadata): void {
  for (const [key, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') headers.set(key, value)
}

/** An error reply read as the HTTP bindings' are: reason from ErrorInfo, fields from BadRequest. */
function errorReply(error: ServiceError, headers: Headers): WireReply {
  const [bytes] = error.metadata?.get(STATUS_DETAILS_KEY) ?? []
  const status = bytes instanceof Buffer ? codecOf('google.rpc.Status').decode(bytes) : undefined
  // protobufjs reads each google.protobuf.Any as ProtoJSON does: `@type`, then the message's fields.
  const details = (status?.details as Record<string, unknown>[] | undefined) ?? []
  copyInto(headers, error.metadata ?? new Metadata())
  return {
    status: error.code,
    headers,
    body: { error: { code: error.code, message: error.details, details } },
    result: undefined,
    error: {
      reason: details.find((detail) => detail['@type'] === ERROR_INFO_TYPE)?.reason as string | undefined,
      fields: details.flatMap((detail) => (detail.fieldViolations as { field: string }[] | undefined) ?? []).map((violation) => violation.field),
      message: error.details,
      code: undefined,
    },
  }
}

/** A server stream as the SSE client's reply: settles once it has its first event, or its status. */
function openStream(call: ReturnType<Client['makeServerStreamRequest']>): Promise<SseReply> {
  const events: SseEvent[] = []
  const headers = new Headers()
  let cursor = 0
  let done = false
  let wake: (() => void) | undefined
  return new Promise((resolve) => {
    const reply: SseReply = {
      status: 0,
      headers,
      events,
      comments: 0,
      next: async () => {
        while (cursor >= events.length && !done) await new Promise<void>((resolveNext) => (wake = resolveNext))
        return events[cursor++]
      },
      ended: new Promise((resolveEnded) => {
        const finish = () => {
          done = true
          wake?.()
          resolveEnded(events)
          resolve(reply)
        }
        call.on('end', finish)
        call.on('error', (error: ServiceError) => {
          // An error before any event is the reply itself; after one, the stream's closing `error` event.
          const failed = errorReply(error, headers)
          if (events.length === 0) Object.assign(reply, { status: failed.status, body: failed.body })
          else events.push({ event: 'error', data: failed.body })
          finish()
        })
      }),
      close: () => call.cancel(),
    }
    call.on('metadata', (metadata: Metadata) => copyInto(headers, metadata))
    call.on('data', (response: unknown) => {
      events.push({ data: response })
      wake?.()
      resolve(reply)
    })
  })
}
