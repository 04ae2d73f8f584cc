/**
 * Prisma field → JSON Schema of one value. Values travel as JSON, so types JSON cannot carry
 * exactly go as strings: Decimal keeps its digits, BigInt passes 2^53, Bytes are base64.
 * @module
 */
import type { JsonSchema } from '@a2a-agent/runtime'
import type { DmmfField } from './dmmf.js'

// Prisma's Int is a signed 32-bit column; a bigger number fails in the database, not in validation.
const INT = { type: 'integer', minimum: -2147483648, maximum: 2147483647 }

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  Int: INT,
  Float: { type: 'number' },
  Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
  BigInt: { type: 'string', pattern: '^-?\\d+$' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  // Any JSON value but null: Prisma stores a null Json through Prisma.DbNull, which tools cannot name.
  Json: { type: ['object', 'array', 'string', 'number', 'boolean'] },
  Bytes: { type: 'string', contentEncoding: 'base64', pattern: '^[A-Za-z0-9+/]*={0,2}$' },
}

export const isKnownScalar = (type: string): boolean => type in SCALARS

/** Fields a list can filter by equality and sort by. */
export const isComparable = (field: { kind: string; type: string; isList: boolean }): boolean => !field.isList && (field.kind === 'enum' || !['Json', 'Bytes'].includes(field.type))

// What a native column type adds to its scalar's schema: the database refuses anything else.
const NATIVE: Record<string, (args: string[]) => JsonSchema> = {
  VarChar: ([length]) => (length ? { maxLength: Number(length) } : {}),
  Char: ([length]) => ({ maxLength: Number(length ?? 1) }),
  Uuid: () => ({ format: 'uuid' }),
  SmallInt: () => ({ minimum: -32768, maximum: 32767 }),
  // MySQL's integer columns (Prisma's Int stays 32-bit signed, so UnsignedInt keeps INT's maximum).
  TinyInt: () => ({ minimum: -128, maximum: 127 }),
  UnsignedTinyInt: () => ({ minimum: 0, maximum: 255 }),
  UnsignedSmallInt: () => ({ minimum: 0, maximum: 65535 }),
  MediumInt: () => ({ minimum: -8388608, maximum: 8388607 }),
  UnsignedMediumInt: () => ({ minimum: 0, maximum: 16777215 }),
  UnsignedInt: () => ({ minimum: 0 }),
  Year: () => ({ minimum: 1901, maximum: 2155 }),
  // TinyText, Text, MediumText, LongText: no bound here (the database's are bytes, not characters).
}

export function fieldSchema(field: DmmfField, enumValues: string[] | undefined): JsonSchema {
  const [native, args = []] = field.nativeType ?? []
  let schema: JsonSchema = enumValues ? { type: 'string', enum: [...enumValues] } : { ...SCALARS[field.type], ...(native ? NATIVE[native]?.(args) : {}) }
  if (field.isList) {
    schema = { type: 'array', items: schema }
  } else if (!field.isRequired && field.type !== 'Json') {
    // Optional columns accept null: "no due date" is a value agents must be able to send.
    schema = { ...schema, type: [schema.type, 'null'], ...(enumValues ? { enum: [...enumValues, null] } : {}) }
  }
  const description = field.documentation === undefined ? '' : documentationText(field.documentation)
  return description ? { ...schema, description } : schema
}

// `///` comments also carry other generators' annotations (`@zod.string.email()`,
// `@TypeGraphQL.omit(output: true)`, `@HideField()`): `@Name` followed by `.member` or a
// parenthesised argument list, chained. Prose mentions (`@ada`, `ada@example.com`) stay.
const ANNOTATION_START = /(^|\s)@[A-Za-z_]\w*(?=[.(])/g

/** A `///` comment as prose for descriptions: other generators' annotations left out. */
export function documentationText(documentation: string): string {
  return documentation
    .split('\n')
    .map((line) => withoutAnnotations(line).replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n')
}

function withoutAnnotations(line: string): string {
  let text = line
  for (let match = ANNOTATION_START.exec(text); match; match = ANNOTATION_START.exec(text)) {
    const from = match.index + match[1]!.length
    const to = annotationEnd(text, match.index + match[0].length)
    text = `${text.slice(0, from)}${text.slice(to)}`
    ANNOTATION_START.lastIndex = from
  }
  ANNOTATION_START.lastIndex = 0
  return text
}

// Past `.member` and `(…)` groups (nested, quotes respected) from `at`.
function annotationEnd(text: string, at: number): number {
  let index = at
  for (;;) {
    const member = /^\.[A-Za-z_]\w*/.exec(text.slice(index))
    if (member) {
      index += member[0].length
      continue
    }
    if (text[index] !== '(') return index
    let depth = 0
    let quote: string | undefined
    for (; index < text.length; index++) {
      const char = text[index]!
      if (quote) {
        if (char === '\\') index++
        else if (char === quote) quote = undefined
      } else if (char === '"' || char === "'" || char === '`') quote = char
      else if (char === '(') depth++
      else if (char === ')' && --depth === 0) break
    }
    index++
  }
}
