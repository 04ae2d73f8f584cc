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
 * replace Any's; the generated `toObject` of every type that holds one calls it. Encoding:
 * protobufjs's generated encoders take plain objects, but with enum numbers and the well-known
 * types as messages. Rather than copy every answer into that shape, the well-known types write
 * their ProtoJSON straight to the writer, and a type with enum fields copies only itself, its enum
 * names made numbers, before its generated encoder runs; every other object is encoded as it is
 * (bytes as base64 strings too, which protobufjs's writer decodes). Generated code calls a
 * field's type's `encode` and `toObject` when it runs, so it reaches these.
 */
export function useProtoJson(root: protobuf.Root): void {
  for (const type of typesOf(root)) {
    const wellKnown = WELL_KNOWN[type.fullName.slice(1)]
    const enums = wellKnown ? [] : enumFieldsOf(type)
    if (!wellKnown && enums.length === 0) continue
    // Makes the generated functions, replaced or wrapped below; once only, as a second setup() would undo that.
    type.setup()
    if (wellKnown) {
      ;(type as unknown as { toObject: (message: never) => Json }).toObject = wellKnown.to
      type.encode = ((json: unknown, writer?: protobuf.Writer, depth = 0) => {
        const out = writer ?? protobuf.Writer.create()
        wellKnown.write(json, out, depth)
        return out
      }) as typeof type.encode
    } else {
      const generated = type.encode.bind(type) as (message: unknown, writer?: protobuf.Writer, depth?: number) => protobuf.Writer
      type.encode = ((message: unknown, writer?: protobuf.Writer, depth?: number) => generated(withEnumNumbers(message, enums), writer, depth)) as typeof type.encode
    }
  }
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

type WellKnownEncoder = (json: unknown, writer: protobuf.Writer, depth: number) => void

function typesOf(namespace: protobuf.NamespaceBase): protobuf.Type[] {
  return namespace.nestedArray.flatMap((nested) => [
    ...(nested instanceof protobuf.Type ? [nested] : []),
    ...(nested instanceof protobuf.Namespace || nested instanceof protobuf.Type ? typesOf(nested) : []),
  ])
}

type EnumField = [name: string, convert: (value: unknown) => unknown]

function enumFieldsOf(type: protobuf.Type): EnumField[] {
  const fields: EnumField[] = []
  for (const field of type.fieldsArray) {
    field.resolve()
    if (!(field.resolvedType instanceof protobuf.Enum)) continue
    const one = enumNumber(field.resolvedType)
    fields.push([field.name, field.map ? mapOf(one) : field.repeated ? listOf(one) : one])
  }
  return fields
}

function withEnumNumbers(message: unknown, enums: readonly EnumField[]): unknown {
  if (message === null || typeof message !== 'object') return message
  let out: Record<string, unknown> | undefined
  for (const [name, convert] of enums) {
    const value = (message as Record<string, unknown>)[name]
    if (value === undefined || value === null || typeof value === 'number') continue
    out ??= { ...message }
    out[name] = convert(value)
  }
  return out ?? message
}

const listOf =
  (convert: (value: unknown) => unknown) =>
  (value: unknown): unknown =>
    Array.isArray(value) ? value.map(convert) : value

const mapOf =
  (convert: (value: unknown) => unknown) =>
  (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) out[key] = convert((value as Record<string, unknown>)[key])
    return out
  }

function enumNumber(type: protobuf.Enum): (value: unknown) => unknown {
  return (value) => {
    if (typeof value !== 'string') return value
    const number = type.values[value]
    if (number === undefined) throw new TypeError(`${JSON.stringify(value)} is not a ${type.name} (${Object.keys(type.values).join(', ')})`)
    return number
  }
}

// Field tags (field number << 3 | wire type) of the well-known types, as protoc numbers them.
const VALUE_NULL = 8
const VALUE_NUMBER = 17
const VALUE_STRING = 26
const VALUE_BOOL = 32
const VALUE_STRUCT = 42
const VALUE_LIST = 50
const STRUCT_FIELDS = 10
const MAP_KEY = 10
const MAP_VALUE = 18
const LIST_VALUES = 10
const TIMESTAMP_SECONDS = 8
const TIMESTAMP_NANOS = 16

function writeValue(json: unknown, writer: protobuf.Writer, depth: number): void {
  if (depth > MAX_DEPTH) throw new TypeError('a google.protobuf.Value nests too deep')
  if (json === null) return void writer.uint32(VALUE_NULL).int32(0)
  switch (typeof json) {
    case 'number':
      return void writer.uint32(VALUE_NUMBER).double(json)
    case 'string':
      return void writer.uint32(VALUE_STRING).string(json)
    case 'boolean':
      return void writer.uint32(VALUE_BOOL).bool(json)
    case 'object':
      writer.uint32(Array.isArray(json) ? VALUE_LIST : VALUE_STRUCT).fork()
      if (Array.isArray(json)) writeList(json, writer, depth + 1)
      else writeStruct(json, writer, depth + 1)
      return void writer.ldelim()
    default:
      throw new TypeError(`a ${typeof json} is not a JSON value`)
  }
}

function writeStruct(json: unknown, writer: protobuf.Writer, depth: number): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TypeError('a google.protobuf.Struct must be a JSON object')
  for (const key of Object.keys(json)) {
    const value = (json as Record<string, unknown>)[key]
    if (value === undefined) continue
    writer.uint32(STRUCT_FIELDS).fork().uint32(MAP_KEY).string(key).uint32(MAP_VALUE).fork()
    writeValue(value, writer, depth)
    writer.ldelim().ldelim()
  }
}

function writeList(json: unknown, writer: protobuf.Writer, depth: number): void {
  if (!Array.isArray(json)) throw new TypeError('a google.protobuf.ListValue must be a JSON array')
  for (const item of json) {
    writer.uint32(LIST_VALUES).fork()
    writeValue(item, writer, depth)
    writer.ldelim()
  }
}

function writeTimestamp(json: unknown, writer: protobuf.Writer): void {
  const { seconds, nanos } = timestampFrom(json)
  writer.uint32(TIMESTAMP_SECONDS).int64(seconds).uint32(TIMESTAMP_NANOS).int32(nanos)
}

const WELL_KNOWN: Record<string, { to: (message: never) => Json; write: WellKnownEncoder }> = {
  [VALUE]: { to: valueTo, write: writeValue },
  [STRUCT]: { to: structTo, write: writeStruct },
  [LIST]: { to: listTo, write: writeList },
  [TIMESTAMP]: { to: timestampTo, write: writeTimestamp },
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
