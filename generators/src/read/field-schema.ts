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
export const isComparable = (field: { kind: string; type: string; isList: boolean }): boolean =>
  !field.isList && (field.kind === 'enum' || !['Json', 'Bytes'].includes(field.type))

export function fieldSchema(field: DmmfField, enumValues: string[] | undefined): JsonSchema {
  let schema: JsonSchema = enumValues ? { type: 'string', enum: [...enumValues] } : { ...SCALARS[field.type] }
  if (field.isList) {
    schema = { type: 'array', items: schema }
  } else if (!field.isRequired && field.type !== 'Json') {
    // Optional columns accept null: "no due date" is a value agents must be able to send.
    schema = { ...schema, type: [schema.type, 'null'], ...(enumValues ? { enum: [...enumValues, null] } : {}) }
  }
  return field.documentation ? { ...schema, description: field.documentation } : schema
}
