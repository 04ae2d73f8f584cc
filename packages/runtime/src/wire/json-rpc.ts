/**
 * Strict decoding of the JSON-RPC 2.0 envelope. JSON.parse keeps the last of repeated keys, so a
 * body like `{"method":"GetTask","method":"CancelTask"}` would mean different things to different
 * parsers; we refuse any repeated top-level key, including one spelled in two cases.
 * @module
 */
import { A2AError, type JsonRpcErrorObject } from './a2a-error.js'

export type JsonRpcId = string | number | null

export interface JsonRpcRequest {
  id: JsonRpcId
  method: string
  params: Record<string, unknown>
}

export type JsonRpcResponse = { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject }

/** Thrown by {@link decodeEnvelope}; carries the request id when it could be read. */
export class EnvelopeError extends Error {
  constructor(
    readonly error: A2AError,
    readonly id: JsonRpcId,
  ) {
    super(error.message)
  }
}

/**
 * The envelope of a JSON-RPC request body. `repeated`: the body's first repeated key, as the
 * admitting scan found it (checkBodyText in wire/limits.ts, with `params` as its nested member),
 * refused here once the body parses.
 */
export function decodeEnvelope(body: string, repeated: string | undefined): JsonRpcRequest {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    throw new EnvelopeError(A2AError.parse((error as Error).message), null)
  }
  if (Array.isArray(value)) {
    throw new EnvelopeError(A2AError.invalidRequest('Batch requests are not supported: send one JSON-RPC request object per HTTP POST'), null)
  }
  if (value === null || typeof value !== 'object') {
    throw new EnvelopeError(A2AError.invalidRequest('The body must be a JSON-RPC 2.0 request object'), null)
  }
  // The request message in params is held to the same rule as on the HTTP+JSON binding.
  if (repeated) throw new EnvelopeError(A2AError.parse(repeated), null)

  const envelope = value as Record<string, unknown>
  const id = envelope.id
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) || id === null
  const replyId: JsonRpcId = validId ? (id as JsonRpcId) : null

  if (envelope.jsonrpc !== '2.0') throw invalid('"jsonrpc" must be the string "2.0"', replyId)
  if (!('id' in envelope)) {
    throw invalid('"id" is required: notifications are not supported, every A2A method answers', replyId)
  }
  if (!validId) throw invalid('"id" must be a string, a number or null', replyId)
  if (typeof envelope.method !== 'string' || envelope.method === '') throw invalid('"method" must be a non-empty string', replyId)
  const params = envelope.params ?? {}
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw invalid('"params" must be a JSON object', replyId)
  }
  return { id: replyId, method: envelope.method, params: params as Record<string, unknown> }
}

const invalid = (message: string, id: JsonRpcId) => new EnvelopeError(A2AError.invalidRequest(message), id)

export const rpcResult = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result })

export const rpcError = (id: JsonRpcId, error: A2AError): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: error.toJSON(),
})
