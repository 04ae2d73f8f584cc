/**
 * The request limits, checked in one pass over the parsed params before any method parses them:
 * nesting depth, parts per message, keys per metadata object, list lengths, id lengths, and strings
 * every store can hold (no U+0000, no lone surrogate). The pass is iterative and linear in the body,
 * which the body cap bounds, so no request costs more here than its bytes.
 * @module
 */
import { A2AError, MAX_LISTED_VIOLATIONS, type FieldViolation } from './a2a-error.js'
import { EnvelopeError, type JsonRpcRequest } from './json-rpc.js'

export interface RequestLimits {
  /** Deepest nesting of objects and arrays in `params`, data parts and metadata included. */
  maxJsonDepth: number
  /** Parts in one message. */
  maxPartsPerMessage: number
  /** Keys in one metadata object. */
  maxMetadataKeys: number
  /** Items in a list field other than parts (referenceTaskIds, extensions, acceptedOutputModes). */
  maxListItems: number
  /** Characters in an id (messageId, taskId, contextId, id, tenant, pageToken, a JSON-RPC id). */
  maxIdLength: number
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  maxJsonDepth: 64,
  maxPartsPerMessage: 256,
  maxMetadataKeys: 128,
  maxListItems: 64,
  maxIdLength: 256,
}

/** The limits with each unset (or 0) one at its default; a limit must be a positive whole number. */
export function requestLimits(overrides: Partial<RequestLimits> = {}): RequestLimits {
  const limits = { ...DEFAULT_REQUEST_LIMITS }
  for (const [name, value] of Object.entries(overrides) as [keyof RequestLimits, number | undefined][]) {
    if (!(name in DEFAULT_REQUEST_LIMITS)) throw new Error(`requestLimits.${name} is not a limit; the limits are ${Object.keys(DEFAULT_REQUEST_LIMITS).join(', ')}`)
    if (value === undefined || value === 0) continue
    if (!Number.isInteger(value) || value < 0) throw new Error(`requestLimits.${name} must be a positive whole number, got ${value}`)
    limits[name] = value
  }
  return limits
}

/** Field names compared with underscores dropped and case folded: ProtoJSON accepts both spellings. */
const fold = (key: string): string => key.replace(/_/g, '').toLowerCase()
const ID_FIELDS = new Set(['id', 'taskid', 'contextid', 'messageid', 'tenant', 'pagetoken'])
const ID_LISTS = new Set(['referencetaskids'])
/** Values the app owns: no field-name rules apply inside them, only depth and string rules. */
const OPAQUE_FIELDS = new Set(['data', 'metadata'])

interface Pending {
  value: unknown
  path: string
  depth: number
  /** Inside a data part or metadata value. */
  opaque: boolean
}

/**
 * Throws one -32602 listing the violations (at most {@link MAX_LISTED_VIOLATIONS}, with the count
 * of the rest) when `params` breaks a limit or holds a string a store cannot keep.
 */
export function checkRequestLimits(params: unknown, limits: RequestLimits = DEFAULT_REQUEST_LIMITS): void {
  checkLimits(params, limits, 'params', false)
}

/** Depth and string rules only, for a value the app shapes itself (e.g. tool arguments at `root`). */
export function checkJsonLimits(value: unknown, limits: RequestLimits, root: string): void {
  checkLimits(value, limits, root, true)
}

function checkLimits(input: unknown, limits: RequestLimits, root: string, opaqueRoot: boolean): void {
  const violations = new Violations()
  const stack: Pending[] = [{ value: input, path: root, depth: 0, opaque: opaqueRoot }]
  while (stack.length) {
    const { value, path, depth, opaque } = stack.pop()!
    if (typeof value === 'string') {
      const problem = badString(value)
      if (problem) violations.add(path, problem)
      continue
    }
    if (typeof value !== 'object' || value === null) continue
    if (depth >= limits.maxJsonDepth) {
      violations.add(path, `nests deeper than ${limits.maxJsonDepth} levels (maxJsonDepth)`)
      continue
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1, opaque })
      continue
    }
    const fields = Object.entries(value).map(([key, item]) => ({ key, item, path: `${path}${segment(key)}` }))
    for (const { key, item, path: itemPath } of fields) {
      const keyProblem = badString(key)
      if (keyProblem) violations.add(itemPath, `its key ${keyProblem}`)
      if (!opaque) checkField(fold(key), item, itemPath, limits, violations)
    }
    // Pushed last to first, so fields are visited in document order.
    for (let i = fields.length - 1; i >= 0; i--) {
      const { key, item, path: itemPath } = fields[i]!
      stack.push({ value: item, path: itemPath, depth: depth + 1, opaque: opaque || OPAQUE_FIELDS.has(fold(key)) })
    }
  }
  violations.throwIfAny()
}

/** The limits tied to a field's name, checked where the field appears in the request's own shape. */
function checkField(name: string, value: unknown, path: string, limits: RequestLimits, violations: Violations): void {
  if (ID_FIELDS.has(name) && typeof value === 'string' && value.length > limits.maxIdLength) {
    violations.add(path, `is ${value.length} characters; ids are at most ${limits.maxIdLength} (maxIdLength)`)
  } else if (name === 'parts' && Array.isArray(value) && value.length > limits.maxPartsPerMessage) {
    violations.add(path, `holds ${value.length} parts; a message holds at most ${limits.maxPartsPerMessage} (maxPartsPerMessage)`)
  } else if (name === 'metadata' && isObject(value)) {
    const keys = Object.keys(value).length
    if (keys > limits.maxMetadataKeys) violations.add(path, `has ${keys} keys; metadata holds at most ${limits.maxMetadataKeys} (maxMetadataKeys)`)
  } else if (name !== 'parts' && Array.isArray(value)) {
    if (value.length > limits.maxListItems) violations.add(path, `holds ${value.length} items; a list holds at most ${limits.maxListItems} (maxListItems)`)
    else if (ID_LISTS.has(name)) {
      value.forEach((item, i) => {
        if (typeof item === 'string' && item.length > limits.maxIdLength) {
          violations.add(`${path}[${i}]`, `is ${item.length} characters; ids are at most ${limits.maxIdLength} (maxIdLength)`)
        }
      })
    }
  }
}

// With the u flag a paired surrogate is one code point, so this matches only lone ones.
const LONE_SURROGATE = /\p{Cs}/u

/** Why a string cannot be stored alike everywhere (PostgreSQL refuses both), or undefined. */
export function badString(value: string): string | undefined {
  if (value.includes('\u0000')) return 'contains U+0000 (NUL), which no store keeps; remove it'
  if (LONE_SURROGATE.test(value)) return 'contains a lone UTF-16 surrogate, which is not Unicode text; send well-formed text'
  return undefined
}

/** A path segment: `.key` for a plain name, `["…"]` (escaped, shortened) for anything else. */
export function segment(key: string): string {
  if (/^[A-Za-z_$][\w$]{0,63}$/.test(key)) return `.${key}`
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key
  // JSON.stringify escapes control characters and lone surrogates, so the path stays printable.
  return `[${JSON.stringify(shown)}]`
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Collects violations, keeping the first few and counting the rest. */
class Violations {
  readonly #listed: FieldViolation[] = []
  #omitted = 0

  add(field: string, description: string): void {
    if (this.#listed.length < MAX_LISTED_VIOLATIONS) this.#listed.push({ field, description })
    else this.#omitted++
  }

  throwIfAny(): void {
    const [first, ...rest] = this.#listed
    if (first) throw A2AError.invalidParams(first.field, first.description, rest, this.#omitted)
  }
}

/** Longest method name taken: every A2A method name is far shorter. */
const MAX_METHOD_LENGTH = 64

/** -32600 when the envelope's id or method is longer than any a client needs (both are echoed back). */
export function checkEnvelopeLimits(envelope: JsonRpcRequest, maxIdLength: number): void {
  if (typeof envelope.id === 'string' && envelope.id.length > maxIdLength) {
    throw new EnvelopeError(A2AError.invalidRequest(`"id" is ${envelope.id.length} characters; a request id is at most ${maxIdLength} (maxIdLength)`), null)
  }
  if (envelope.method.length > MAX_METHOD_LENGTH) {
    throw new EnvelopeError(A2AError.invalidRequest(`"method" is ${envelope.method.length} characters; no method name is longer than ${MAX_METHOD_LENGTH}`), envelope.id)
  }
}
