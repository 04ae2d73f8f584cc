/**
 * The request limits, checked in one pass over the parsed params before any method parses them:
 * nesting depth, parts per message, keys per metadata object, list lengths, id lengths, and strings
 * every store can hold (no U+0000, no lone surrogate). The pass is iterative and linear in the body,
 * which the body cap bounds, so no request costs more here than its bytes.
 * @module
 */
import { A2AError, MAX_LISTED_VIOLATIONS, type FieldViolation } from './a2a-error.js'
import { EnvelopeError, type JsonRpcRequest } from './json-rpc.js'
import { KeySpellings, stringEnd } from './json-text.js'

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
  /** Values (objects, arrays, strings, numbers, booleans, nulls) in one request body. */
  maxJsonValues: number
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  maxJsonDepth: 64,
  maxPartsPerMessage: 256,
  maxMetadataKeys: 128,
  maxListItems: 64,
  maxIdLength: 256,
  maxJsonValues: 20_000,
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
const fold = (key: string): string => (key.includes('_') ? key.replace(/_/g, '') : key).toLowerCase()
const ID_FIELDS = new Set(['id', 'taskid', 'contextid', 'messageid', 'tenant', 'pagetoken'])
const ID_LISTS = new Set(['referencetaskids'])
/** Values the app owns: no field-name rules apply inside them, only depth and string rules. */
const OPAQUE_FIELDS = new Set(['data', 'metadata'])

interface Pending {
  value: unknown
  /** The container holding this value, and the value's key or index in it: the path is built only for a violation. */
  parent: Pending | undefined
  key: string | number
  depth: number
  /** Inside a data part or metadata value. */
  opaque: boolean
}

/**
 * Throws one -32602 listing the violations (at most MAX_LISTED_VIOLATIONS, with the count of the
 * rest) when `params` breaks a limit or holds a string a store cannot keep.
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
  const stack: Pending[] = [{ value: input, parent: undefined, key: root, depth: 0, opaque: opaqueRoot }]
  while (stack.length) {
    const entry = stack.pop()!
    const { value, depth, opaque } = entry
    if (typeof value === 'string') {
      const problem = badString(value)
      if (problem) violations.add(entry, problem)
      continue
    }
    if (typeof value !== 'object' || value === null) continue
    if (depth >= limits.maxJsonDepth) {
      violations.add(entry, `nests deeper than ${limits.maxJsonDepth} levels (maxJsonDepth)`)
      continue
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) push(stack, value[i], entry, i, opaque)
      continue
    }
    const first = stack.length
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue
      const item = (value as Record<string, unknown>)[key]
      const keyProblem = badString(key)
      if (keyProblem) violations.add({ parent: entry, key }, `its key ${keyProblem}`)
      const name = opaque ? '' : fold(key)
      // A field over its limit is reported once and not walked: its size is what made it too costly.
      if (opaque || withinFieldLimits(name, item, entry, key, limits, violations)) push(stack, item, entry, key, opaque || OPAQUE_FIELDS.has(name))
    }
    // Pushed first to last, then turned around, so fields are visited in document order.
    for (let i = first, j = stack.length - 1; i < j; i++, j--) {
      const swapped = stack[i]!
      stack[i] = stack[j]!
      stack[j] = swapped
    }
  }
  violations.throwIfAny()
}

function push(stack: Pending[], value: unknown, parent: Pending, key: string | number, opaque: boolean): void {
  // Numbers, booleans and null break no rule: not worth a stack entry.
  if (typeof value === 'string' || (typeof value === 'object' && value !== null)) stack.push({ value, parent, key, depth: parent.depth + 1, opaque })
}

/** A value's place: the container holding it and its key or index there. */
type Place = { parent: Pending | undefined; key: string | number }

function pathOf(entry: Place): string {
  const keys: (string | number)[] = []
  for (let at: Place | undefined = entry; at; at = at.parent) keys.push(at.key)
  const [root, ...rest] = keys.reverse()
  return `${String(root)}${rest.map((key) => (typeof key === 'number' ? `[${key}]` : segment(key))).join('')}`
}

/** The limits tied to a field's name, where the field appears in the request's own shape; false when one is broken. */
function withinFieldLimits(name: string, value: unknown, parent: Pending, key: string, limits: RequestLimits, violations: Violations): boolean {
  if (ID_FIELDS.has(name) && typeof value === 'string' && value.length > limits.maxIdLength) {
    violations.add({ parent, key }, `is ${value.length} characters; ids are at most ${limits.maxIdLength} (maxIdLength)`)
    return false
  }
  if (name === 'metadata' && isObject(value)) {
    let keys = 0
    for (const _key in value) keys++
    if (keys <= limits.maxMetadataKeys) return true
    violations.add({ parent, key }, `has more than ${limits.maxMetadataKeys} keys (maxMetadataKeys)`)
    return false
  }
  // A data part's value is the app's, however long a list it is.
  if (!Array.isArray(value) || name === 'data') return true
  if (name === 'parts') {
    if (value.length <= limits.maxPartsPerMessage) return true
    violations.add({ parent, key }, `holds more than ${limits.maxPartsPerMessage} parts (maxPartsPerMessage)`)
    return false
  }
  if (value.length > limits.maxListItems) {
    violations.add({ parent, key }, `holds more than ${limits.maxListItems} items (maxListItems)`)
    return false
  }
  if (ID_LISTS.has(name)) {
    value.forEach((item, i) => {
      if (typeof item === 'string' && item.length > limits.maxIdLength) {
        violations.add(
          { parent: { value, parent, key, depth: parent.depth + 1, opaque: false }, key: i },
          `is ${item.length} characters; ids are at most ${limits.maxIdLength} (maxIdLength)`,
        )
      }
    })
  }
  return true
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

  add(place: Place, description: string): void {
    if (this.#listed.length < MAX_LISTED_VIOLATIONS) this.#listed.push({ field: pathOf(place), description })
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

/**
 * The limits checked on the body text before JSON.parse, whose cost grows with what it allocates:
 * 1 MiB of `[` takes V8 over a second to parse, 1 MiB of `{},` or of object keys a few hundred ms,
 * where this scan takes milliseconds. It counts nesting (`maxDepth` containers from the top, which
 * is one or two levels above params), every value, and the items of `parts` and keys of `metadata`
 * outside data parts and metadata, as the walk over the parsed params does. Throws the -32602 the
 * walk would, naming the path. `shapedRoot` false applies only depth and value counts (MCP, whose
 * tool arguments the app shapes).
 *
 * The same scan is the one finder of repeated keys (exactly or in another case) among the
 * top-level keys and, with `nested`, the keys of that top-level member's object: it answers the
 * first repeat in the body, which decodeEnvelope and the REST body decoder refuse once JSON.parse
 * has accepted the body.
 */
export function checkBodyText(text: string, limits: RequestLimits, levelsAboveParams: number, shapedRoot = true, nested?: string): string | undefined {
  const maxDepth = limits.maxJsonDepth + levelsAboveParams
  const scan: BodyScan = { limits, path: [], values: 0 }
  let repeated: string | undefined
  let topKeys: KeySpellings | undefined
  let nestedKeys: KeySpellings | undefined
  const { path } = scan
  /** Per open container: array or object, its items so far, and the field rule counting them. */
  const open: OpenContainer[] = []
  // Containers from this index on are inside a data part or metadata (or all of them, for a body the app shapes).
  let opaqueFrom = shapedRoot ? Infinity : 0
  let expectKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      // A string outside every container (a body like `"a":1,"b":2`) is no key: JSON.parse refuses that body.
      if (expectKey && open.length) {
        const key = keyText(text.slice(i, end))
        path[path.length - 1] = key
        expectKey = false
        // The keys of the top-level object and, below it, of the object of its member `nested`.
        if (repeated === undefined && open.length <= 2 && !open[0]!.array) {
          if (open.length === 1) repeated = (topKeys ??= new KeySpellings()).repeat(key, 'top-level key')
          else if (path[0] === nested && !open[1]!.array) repeated = nestedKeys!.repeat(key, `key of ${nested}`)
        }
      }
      i = end - 1
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (open.length >= maxDepth) failAt(path, `nests deeper than ${limits.maxJsonDepth} levels (maxJsonDepth)`)
      const last = path[path.length - 1]
      const name = typeof last === 'string' ? fold(last) : ''
      const shaped = open.length < opaqueFrom
      const array = c === OPEN_BRACKET
      const rule = shaped && array && name === 'parts' ? 'parts' : shaped && !array && name === 'metadata' ? 'metadata' : undefined
      if (shaped && OPAQUE_FIELDS.has(name)) opaqueFrom = open.length
      if (!array && open.length === 1 && last === nested && nested !== undefined) nestedKeys = new KeySpellings()
      open.push({ array, items: 0, rule })
      path.push(array ? 0 : '')
      expectKey = !array
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const closing = open[open.length - 1]
      // The last item has no comma after it; an empty container has none at all.
      if (closing && text.charCodeAt(previousNonSpace(text, i)) !== (closing.array ? OPEN_BRACKET : OPEN_BRACE)) countItem(scan, closing)
      open.pop()
      path.pop()
      if (open.length <= opaqueFrom) opaqueFrom = shapedRoot ? Infinity : 0
      expectKey = false
    } else if (c === COMMA) {
      const container = open[open.length - 1]
      if (container) countItem(scan, container)
      if (container?.array) (path[path.length - 1] as number)++
      else if (container) expectKey = true
    }
  }
  return repeated
}

interface OpenContainer {
  array: boolean
  items: number
  rule: 'parts' | 'metadata' | undefined
}

/** What {@link checkBodyText} carries through its scan: the path to the current value and the values counted. */
interface BodyScan {
  limits: RequestLimits
  path: (string | number)[]
  values: number
}

function countItem(scan: BodyScan, container: OpenContainer): void {
  const { limits, path } = scan
  container.items++
  if (++scan.values > limits.maxJsonValues) failAt(path, `holds more than ${limits.maxJsonValues} JSON values (maxJsonValues)`)
  if (container.rule === 'parts' && container.items > limits.maxPartsPerMessage) {
    path.pop()
    failAt(path, `holds more than ${limits.maxPartsPerMessage} parts (maxPartsPerMessage)`)
  }
  if (container.rule === 'metadata' && container.items > limits.maxMetadataKeys) {
    path.pop()
    failAt(path, `has more than ${limits.maxMetadataKeys} keys (maxMetadataKeys)`)
  }
}

/** Throws the -32602 the walk over the parsed params would, naming `path`. */
function failAt(path: readonly (string | number)[], description: string): never {
  const [first, ...rest] = path
  throw A2AError.invalidParams(`${String(first ?? 'params')}${rest.map((key) => (typeof key === 'number' ? `[${key}]` : segment(key))).join('')}`, description)
}

function previousNonSpace(text: string, i: number): number {
  let j = i - 1
  while (j >= 0 && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x0a || text.charCodeAt(j) === 0x0d || text.charCodeAt(j) === 0x09)) j--
  return j
}

const QUOTE = 0x22
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** A key's text from its quoted JSON; most keys hold no escape, and their text is what is between the quotes. */
function keyText(quoted: string): string {
  if (quoted.length > 1 && quoted.endsWith('"') && !quoted.includes('\\')) return quoted.slice(1, -1)
  try {
    return JSON.parse(quoted) as string
  } catch {
    return quoted
  }
}
