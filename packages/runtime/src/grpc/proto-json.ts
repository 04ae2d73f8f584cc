/**
 * The well-known types as ProtoJSON has them, on one protobufjs root: a Struct is a plain object,
 * a Value the JSON value itself, a ListValue an array, a Timestamp an RFC 3339 string. The rest of
 * the runtime reads and writes A2A's ProtoJSON form (what JSON-RPC and HTTP+JSON carry), so with
 * these the gRPC binding's decoded requests are exactly the other bindings' params, and its answers
 * encode from the same objects. Patched on this root's types only, not protobufjs's global
 * `wrappers`, so other protobufjs users in the process keep the default shapes.
 * @module
 */
import protobuf from 'protobufjs'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** protoc's default recursion limit, which protobufjs's decoder holds to as well. */
const MAX_DEPTH = 100

const STRUCT = 'google.protobuf.Struct'
const VALUE = 'google.protobuf.Value'
const LIST = 'google.protobuf.ListValue'
const TIMESTAMP = 'google.protobuf.Timestamp'

/**
 * Decoding: the well-known types' `toObject` replaced on this root, as protobufjs's own wrappers
 * replace Any's; the generated `toObject` of every type that holds one calls it.
 */
export function useProtoJson(root: protobuf.Root): void {
  const patch = (name: string, to: (message: never) => Json) => {
    const type = root.lookupType(name)
    type.setup()
    ;(type as unknown as { toObject: (message: never) => Json }).toObject = to
  }
  patch(VALUE, valueTo)
  patch(STRUCT, structTo)
  patch(LIST, listTo)
  patch(TIMESTAMP, timestampTo)
}

type ValueMessage = { kind?: string; numberValue?: number; stringValue?: string; boolValue?: boolean; structValue?: StructMessage; listValue?: ListMessage }
type StructMessage = { fields?: Record<string, ValueMessage> }
type ListMessage = { values?: ValueMessage[] }

function valueTo(message: ValueMessage): Json {
  switch (message.kind) {
    case 'numberValue':
      return message.numberValue!
    case 'stringValue':
      return message.stringValue!
    case 'boolValue':
      return message.boolValue!
    case 'structValue':
      return structTo(message.structValue!)
    case 'listValue':
      return listTo(message.listValue!)
    default:
      return null
  }
}

function structTo(message: StructMessage): { [key: string]: Json } {
  const json: { [key: string]: Json } = {}
  const fields = message.fields ?? {}
  for (const key of Object.keys(fields)) json[key] = valueTo(fields[key]!)
  return json
}

const listTo = (message: ListMessage): Json[] => (message.values ?? []).map(valueTo)

/**
 * Encoding: protobufjs's encoders take plain objects, but with enum numbers and the well-known
 * types as messages (its `fromObject` refuses a string where a Timestamp goes, or a bare value
 * where a Value does). So each type gets a converter from ProtoJSON that rewrites only the fields
 * that differ (enums, well-known types, and messages that hold them) and leaves the rest, bytes
 * as base64 included (protobufjs's writer decodes base64 strings), as they are. Null when the type
 * holds nothing to rewrite.
 */
export type Encodable = (value: unknown) => unknown

export function encodableOf(type: protobuf.Type): Encodable | null {
  return converter(type, new Map())
}

function converter(type: protobuf.Type, made: Map<protobuf.Type, Encodable | null>): Encodable | null {
  if (made.has(type)) return made.get(type)!
  const known = WELL_KNOWN[type.fullName.slice(1)]
  if (known) return known
  // A type that holds itself (none in a2a.proto) converts lazily through this entry.
  let convert: Encodable | null = (value) => convert!(value)
  made.set(type, convert)
  const fields: [string, Encodable][] = []
  for (const field of type.fieldsArray) {
    field.resolve()
    const resolved = field.resolvedType
    const one = resolved instanceof protobuf.Enum ? enumConverter(resolved) : resolved instanceof protobuf.Type ? converter(resolved, made) : null
    if (!one) continue
    fields.push([field.name, field.map ? mapOf(one) : field.repeated ? listOf(one) : one])
  }
  convert = fields.length === 0 ? null : objectConverter(fields)
  made.set(type, convert)
  return convert
}

function objectConverter(fields: [string, Encodable][]): Encodable {
  return (value) => {
    if (value === null || typeof value !== 'object') return value
    const out: Record<string, unknown> = { ...value }
    for (const [name, convert] of fields) {
      const field = (value as Record<string, unknown>)[name]
      if (field !== undefined && field !== null) out[name] = convert(field)
    }
    return out
  }
}

const listOf =
  (convert: Encodable): Encodable =>
  (value) =>
    Array.isArray(value) ? value.map(convert) : value

const mapOf =
  (convert: Encodable): Encodable =>
  (value) => {
    if (value === null || typeof value !== 'object') return value
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) out[key] = convert((value as Record<string, unknown>)[key])
    return out
  }

function enumConverter(type: protobuf.Enum): Encodable {
  return (value) => {
    if (typeof value !== 'string') return value
    const number = type.values[value]
    if (number === undefined) throw new TypeError(`${JSON.stringify(value)} is not a ${type.name} (${Object.keys(type.values).join(', ')})`)
    return number
  }
}

function valueFrom(json: unknown, depth = 0): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new TypeError('a google.protobuf.Value nests too deep')
  if (json === null) return { nullValue: 0 }
  switch (typeof json) {
    case 'number':
      return { numberValue: json }
    case 'string':
      return { stringValue: json }
    case 'boolean':
      return { boolValue: json }
    case 'object':
      return Array.isArray(json) ? { listValue: listFrom(json, depth + 1) } : { structValue: structFrom(json, depth + 1) }
    default:
      throw new TypeError(`a ${typeof json} is not a JSON value`)
  }
}

function structFrom(json: unknown, depth = 0): { fields: Record<string, unknown> } {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TypeError('a google.protobuf.Struct must be a JSON object')
  const fields: Record<string, unknown> = {}
  for (const key of Object.keys(json)) {
    const value = (json as Record<string, unknown>)[key]
    if (value !== undefined) fields[key] = valueFrom(value, depth)
  }
  return { fields }
}

function listFrom(json: unknown, depth = 0): { values: unknown[] } {
  if (!Array.isArray(json)) throw new TypeError('a google.protobuf.ListValue must be a JSON array')
  return { values: json.map((item) => valueFrom(item, depth)) }
}

const WELL_KNOWN: Record<string, Encodable> = {
  [VALUE]: (json) => valueFrom(json),
  [STRUCT]: (json) => structFrom(json),
  [LIST]: (json) => listFrom(json),
  [TIMESTAMP]: (json) => timestampFrom(json),
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i

/** An RFC 3339 string to seconds and nanos; nanosecond digits are kept, which Date would cut to milliseconds. */
export function timestampFrom(json: unknown): { seconds: number; nanos: number } {
  if (typeof json === 'string' && ISO_MILLIS.test(json)) return isoMillis(json)
  const match = typeof json === 'string' ? RFC3339.exec(json) : null
  const millis = match ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN
  if (Number.isNaN(millis)) throw new TypeError(`${JSON.stringify(json)} is not an RFC 3339 timestamp such as 2026-01-02T03:04:05.678Z`)
  return { seconds: millis / 1000, nanos: match![2] ? Number(match![2].padEnd(9, '0')) : 0 }
}

/** What Date#toISOString writes, and so what every task's timestamps are: read by position, not by Date.parse, as every answer carries several. */
const ISO_MILLIS = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/

function isoMillis(text: string): { seconds: number; nanos: number } {
  const at = (start: number, end: number) => Number(text.slice(start, end))
  const millis = Date.UTC(at(0, 4), at(5, 7) - 1, at(8, 10), at(11, 13), at(14, 16), at(17, 19))
  return { seconds: millis / 1000, nanos: at(20, 23) * 1_000_000 }
}

/** Seconds and nanos to RFC 3339 in UTC, with as many fraction digits as the nanos need (0, 3, 6 or 9), as ProtoJSON writes it. */
export function timestampTo(message: { seconds?: number | { toNumber(): number }; nanos?: number }): string {
  const seconds = typeof message.seconds === 'object' ? message.seconds.toNumber() : (message.seconds ?? 0)
  const nanos = message.nanos ?? 0
  const whole = new Date(seconds * 1000).toISOString().slice(0, 19)
  if (nanos === 0) return `${whole}Z`
  const digits = String(nanos).padStart(9, '0')
  return `${whole}.${nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits}Z`
}
