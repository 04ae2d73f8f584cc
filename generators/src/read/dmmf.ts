/**
 * The slice of Prisma's DMMF (the parsed schema) the generator reads. Prisma's wasm parser
 * returns more; these are the fields entity code depends on.
 * @module
 */

export interface DmmfField {
  name: string
  /** `object` is a relation (or a composite type), `unsupported` an `Unsupported("…")` column. */
  kind: 'scalar' | 'object' | 'enum' | 'unsupported'
  isList: boolean
  isRequired: boolean
  isUnique: boolean
  isId: boolean
  hasDefaultValue: boolean
  /** A scalar name (`String`, `Int`, …), an enum name or, for relations, a model name. */
  type: string
  /** A literal (`"EUR"`, `0`, `false`, an enum value) or a function such as `{ name: 'now', args: [] }`. */
  default?: unknown
  isUpdatedAt: boolean
  /** The `///` comment above the field. */
  documentation?: string
  /** On a relation field: the scalar fields of this model holding the foreign key. */
  relationFromFields?: string[]
  /** On a relation field: the referenced model's fields the foreign key holds. */
  relationToFields?: string[]
  /** `@db.VarChar(120)` → `['VarChar', ['120']]`; null without a native type attribute. */
  nativeType?: [string, string[]] | null
  /** The column name under `@map`, else absent or null. */
  dbName?: string | null
}

export interface DmmfModel {
  name: string
  fields: DmmfField[]
  /** Set for a compound `@@id([a, b])`; a single-field `@id` is marked on the field instead. */
  primaryKey: { name: string | null; fields: string[] } | null
  /** Every `@@unique([a, b])` field set (single-field `@unique` is marked on the field). */
  uniqueFields?: string[][]
  /** The table name under `@@map`, else null. */
  dbName?: string | null
  documentation?: string
}

export interface DmmfEnum {
  name: string
  values: { name: string }[]
  documentation?: string
}

/**
 * One `@id`, `@@id`, `@unique`, `@@unique`, `@@index` or `@@fulltext` (MySQL) of a model. A field's
 * `length` is MySQL's index prefix (`@@index([slug(length: 100)])`): the column stays whole.
 */
export interface DmmfIndex {
  model: string
  type: 'id' | 'unique' | 'normal' | 'fulltext'
  fields: { name: string; length?: number }[]
}

export interface Datamodel {
  models: DmmfModel[]
  enums: DmmfEnum[]
  /** Every model's keys and indexes; absent from a hand-made datamodel. */
  indexes?: DmmfIndex[]
}
