/**
 * Strict decoding of the JSON-RPC 2.0 envelope. JSON.parse keeps the last of repeated keys, so a
 * body like `{"method":"GetTask","method":"CancelTask"}` would mean different things to different
 * parsers; we refuse any repeated top-level key, including one spelled in two cases.
 * @module
 */
import { A2AError, type JsonRpcErrorObject } from './a2a-error.js'
import { KeySpellings, stringEnd } from './json-text.js'

export type JsonRpcId = string | number | null

export interface JsonRpcRequest {
  id: JsonRpcId
  method: string
  params: Record<string, unknown>
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject }

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
 * The envelope of a JSON-RPC request body. `scanned`: what checkBodyText (wire/limits.ts) found
 * scanning this body with `params` as its nested member, so the repeated-key rule needs no
 * second scan; without it the body is scanned here.
 */
export function decodeEnvelope(body: string, scanned?: { repeated: string | undefined }): JsonRpcRequest {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    throw new EnvelopeError(A2AError.parse((error as Error).message), null)
  }
  if (Array.isArray(value)) {
    throw new EnvelopeError(
      A2AError.invalidRequest('Batch requests are not supported: send one JSON-RPC request object per HTTP POST'),
      null,
    )
  }
  if (value === null || typeof value !== 'object') {
    throw new EnvelopeError(A2AError.invalidRequest('The body must be a JSON-RPC 2.0 request object'), null)
  }
  // The request message in params is held to the same rule as on the HTTP+JSON binding.
  const duplicate = scanned ? scanned.repeated : findRepeatedTopLevelKey(body, 'params')
  if (duplicate) throw new EnvelopeError(A2AError.parse(duplicate), null)

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

/**
 * Returns a description of the first top-level key that repeats (exactly or case-insensitively),
 * or undefined; with `nested`, the keys of that member's object value are checked too. Expects
 * text that JSON.parse already accepted as an object.
 */
export function findRepeatedTopLevelKey(text: string, nested?: string, where = 'top-level key'): string | undefined {
  return repeatedKeyIn(text, skipSpace(text, 0), nested, where)
}

/** {@link findRepeatedTopLevelKey} over the object whose `{` is at `from`. */
function repeatedKeyIn(text: string, from: number, nested: string | undefined, where: string): string | undefined {
  const spellings = new KeySpellings()
  let i = from + 1 // past '{'
  for (;;) {
    i = skipSpace(text, i)
    if (i >= text.length || text[i] === '}') return undefined
    const end = stringEnd(text, i)
    // Most keys hold no escape: their text is the key.
    const raw = text.slice(i + 1, end - 1)
    const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw
    const repeat = spellings.repeat(key, where)
    if (repeat) return repeat
    const start = skipSpace(text, skipSpace(text, end) + 1) // past ':'
    i = valueEnd(text, start)
    if (key === nested && text[start] === '{') {
      const inner = repeatedKeyIn(text, start, undefined, `key of ${nested}`)
      if (inner) return inner
    }
    i = skipSpace(text, i)
    if (text[i] === ',') i++
  }
}

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++
  return i
}

const valueEnd = (text: string, i: number): number => {
  if (text[i] === '"') return stringEnd(text, i)
  let depth = 0
  for (let j = i; j < text.length; j++) {
    const c = text[j]
    if (c === '"') j = stringEnd(text, j) - 1
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      if (depth === 0) return j
      depth--
      if (depth === 0) return j + 1
    } else if (c === ',' && depth === 0) return j
  }
  return text.length
}
