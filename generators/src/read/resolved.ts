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
  /** The declaration's description, else the model's `///` documentation. */
  description?: string
  id: ResolvedField
  owner: ResolvedField
  tenant?: ResolvedField
  /** Declared operations, deduplicated, in canonical order. */
  operations: EntityOperation[]
  /** Every scalar and enum field, in schema order: what a row holds. */
  columns: ResolvedField[]
  /** The fields agents see (not hidden), in schema order. */
  fields: ResolvedField[]
  /**
   * The fields a create may set, in schema order: visible, not readOnly, not an id with a
   * default, not the owner or tenant, not a timestamp. An update takes the same ones but the id.
   */
  writable: ResolvedField[]
}
