/**
 * The validated model the plan stage works from: one `ResolvedEntity` per declared entity with
 * tools, every name checked against the schema and every field's JSON Schema worked out once.
 * @module
 */
import type { EntityOperation, JsonSchema } from '@a2a-agent/runtime'

/** The five operations in the runtime's canonical order (the order tools and tests come in). */
export const OPERATIONS = ['list', 'get', 'create', 'update', 'delete'] as const satisfies readonly EntityOperation[]

export interface ResolvedField {
  name: string
  /** A Prisma scalar (`String`, `Int`, `Decimal`, …) or, for `kind: 'enum'`, the enum's name. */
  type: string
  kind: 'scalar' | 'enum'
  isList: boolean
  isRequired: boolean
  hasDefault: boolean
  isId: boolean
  isUnique: boolean
  isUpdatedAt: boolean
  /**
   * `@updatedAt` or `@default(now())`: the database keeps the time, agents do not write it (a
   * creation time an agent could set would be a forgery).
   */
  isTimestamp: boolean
  /** A literal default agents may rely on (`"EUR"`, `0`, `false`, an enum value). */
  default?: string | number | boolean
  documentation?: string
  enumValues?: string[]
  /** The model a foreign key field points at. */
  references?: string
  /** One of the fields of a key of several columns (`@relation(fields: [a, b], references: [x, y])`). */
  partOfKey?: CompositeKey
  /** The column of {@link references} the key holds, when it is a unique column rather than the id. */
  referencedKey?: { name: string; type: string; uuid: boolean }
  /** The column's native type (`VarChar`, `Char`, `Uuid`, `Date`, …), when it has one. */
  nativeType?: string
  /** The column name under `@map`, when it differs from the field name. */
  column?: string
  /** The JSON Schema of one value: type, null when optional, the `///` documentation as description. */
  schema: JsonSchema
}

export interface ResolvedEntity {
  /** The declared name, e.g. `invoices`. */
  name: string
  namespace?: string
  /** The Prisma model, e.g. `Invoice`. */
  model: string
  /** The Prisma client property, e.g. `invoice`. */
  delegate: string
  /** The table name: `@@map`'s, else the model's. */
  table: string
  /** The declaration's description, else the model's `///` documentation. */
  description?: string
  /** The id, or the first field of {@link key}. */
  id: ResolvedField
  /**
   * What get, update and delete take to name one row: the id, or the fields of a compound id
   * but the owner and tenant (those come from the caller).
   */
  key: ResolvedField[]
  /** A compound `@@id`: Prisma's name for it in a unique `where` (`projectId_userId`) and all its fields. */
  compoundKey?: { name: string; fields: string[] }
  owner: ResolvedField
  tenant?: ResolvedField
  /** Declared operations, deduplicated, in canonical order. */
  operations: EntityOperation[]
  /**
   * Per operation, the credential scopes that allow it, in declaration order; empty when none
   * does (no `scopes` declared: scoped callers reach no tool, sessions every one).
   */
  scopes: Partial<Record<EntityOperation, string[]>>
  /** Every scalar and enum field, in schema order: what a row holds. */
  columns: ResolvedField[]
  /** The fields agents see (not hidden), in schema order. */
  fields: ResolvedField[]
  /**
   * The fields a create may set, in schema order: visible, not readOnly, not an id with a
   * default, not the owner or tenant, not a timestamp. An update takes the same ones but the id.
   */
  writable: ResolvedField[]
  /** `@@unique` field sets of more than one field (a single `@unique` is marked on its field). */
  uniqueSets: string[][]
  /** The owner field is unique (or the id): each owner has at most one row. */
  onePerOwner: boolean
  /**
   * Required writable foreign keys and how to make a row each can name, owned by the caller where
   * the row has an owner: what the generated tests create before a create.
   */
  referenceRows: { field: string; row: RowRecipe }[]
  /**
   * The keys of several columns a write may send, each whole or not at all: into a declared
   * entity, checked to name one of the caller's rows; into another model, listed in
   * `writableReferences`.
   */
  compoundReferences: CompositeKey[]
  /** Required keys of several columns the generated tests fill from a row they make first. */
  compositeRows: { key: CompositeKey; row: RowRecipe }[]
  /** Why the generated tests cannot make a row to create with: the tests that need one skip, saying so. */
  createTestsBlocked?: string
  /** The model the owner field references (the entity's own for an owner that is its id). */
  ownerModel?: RowRecipe
  /** The model the tenant field references: the generated tests make a row of it per test tenant. */
  tenantModel?: RowRecipe
  /** What the generator left out, and why: printed with the report. */
  notes: string[]
}

/** A foreign key of several columns: `fields` hold the referenced row's `to` columns. */
export interface CompositeKey {
  /** The relation field, e.g. `bin` of `bin Bin @relation(fields: [binZone, binShelf], …)`. */
  relation: string
  references: string
  fields: string[]
  to: string[]
  isRequired: boolean
}

/**
 * How to make one row of a model with only what the database needs: its required columns without
 * a default, and its required relations (the owner's, or a row made the same way).
 */
export interface RowRecipe {
  model: string
  delegate: string
  /** `@@map`'s table name, else the model's. */
  table: string
  /** The id, or the first field of a compound id. */
  id: { name: string; type: string; uuid: boolean; hasDefault: boolean }
  /** A compound `@@id`'s fields: such a row is made along with another, never an owner's. */
  compoundId?: string[]
  columns: RowColumn[]
  /** Required relations: to the owner model (connected by `ownerId`, its id field), or a row made alike. */
  relations: { field: string; key: string; target: RowRecipe | 'owner'; ownerId?: string }[]
}

export interface RowColumn {
  name: string
  type: string
  isList: boolean
  isUnique: boolean
  enumValues?: string[]
  nativeType?: string
  schema: JsonSchema
}
