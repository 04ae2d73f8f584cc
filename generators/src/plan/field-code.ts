/**
 * TypeScript fragments per field: the row type Prisma returns, the JSON form agents see, and the
 * conversion of an argument into what Prisma takes. Only types JSON cannot carry need any.
 * @module
 */
import type { ResolvedField } from '../read/resolved.js'
import { quote } from './literal.js'

const ROW_TYPES: Record<string, string> = {
  String: 'string',
  Int: 'number',
  Float: 'number',
  Boolean: 'boolean',
  DateTime: 'Date',
  Decimal: 'Decimal',
  BigInt: 'bigint',
  Bytes: 'Uint8Array',
  Json: 'unknown',
}

/** The field's type in a row as Prisma returns it. */
export function rowType(field: ResolvedField): string {
  const base = field.enumValues ? field.enumValues.map(quote).join(' | ') : ROW_TYPES[field.type]!
  if (field.isList) return field.enumValues ? `(${base})[]` : `${base}[]`
  // unknown already holds null.
  return field.isRequired || base === 'unknown' ? base : `${base} | null`
}

// Row value → JSON value, for one non-null value `v`.
const TO_JSON: Record<string, (v: string) => string> = {
  DateTime: (v) => `${v}.toISOString()`,
  Decimal: (v) => `${v}.toFixed()`,
  BigInt: (v) => `${v}.toString()`,
  Bytes: (v) => `toBase64(${v})`,
}

/** `row.<field>` as agents see it: Date → ISO string, Decimal and BigInt → string, Bytes → base64. */
export function presentExpression(field: ResolvedField, row = 'row'): string {
  const value = `${row}.${field.name}`
  const convert = field.kind === 'scalar' ? TO_JSON[field.type] : undefined
  if (!convert) return value
  if (field.isList) return `${value}.map((item) => ${convert('item')})`
  if (field.isRequired) return convert(value)
  // Method calls chain through null (`row.dueAt?.toISOString() ?? null`); toBase64 does not.
  return field.type === 'Bytes' ? `${value} === null ? null : ${convert(value)}` : `${convert(`${value}?`)} ?? null`
}

// JSON argument → Prisma input, for one non-null value `v`.
const FROM_JSON: Record<string, (v: string) => string> = {
  BigInt: (v) => `BigInt(${v})`,
  Bytes: (v) => `fromBase64(${v})`,
}

/**
 * The conversion of argument `source` into Prisma's input type, or undefined when Prisma takes
 * the JSON value as it is (strings for Decimal and DateTime included). `present` says whether the
 * schema guarantees a value (a required create field, an id).
 */
export function inputExpression(field: ResolvedField, source: string, present: boolean): string | undefined {
  if (field.type === 'Json') return `${source} as JsonInput${present ? '' : ' | undefined'}`
  const convert = field.kind === 'scalar' ? FROM_JSON[field.type] : undefined
  if (!convert) return undefined
  if (field.isList) return `${source}${present ? '' : '?'}.map((item) => ${convert('item')})`
  if (present) return convert(source)
  return `${source} == null ? ${source} : ${convert(source)}`
}

/** Whether values of this field need the file's `Decimal` / `JsonInput` helper types. */
export const needsDecimal = (fields: readonly ResolvedField[]): boolean => fields.some((field) => field.type === 'Decimal')
export const hasBytes = (fields: readonly ResolvedField[]): boolean => fields.some((field) => field.type === 'Bytes')
export const needsJsonInput = (fields: readonly ResolvedField[]): boolean => fields.some((field) => field.type === 'Json')
