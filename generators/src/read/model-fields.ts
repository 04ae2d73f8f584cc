/**
 * Per-model checks and the resolution of one field: the id, the owner and tenant keys, and each
 * scalar's JSON Schema.
 * @module
 */
import type { DmmfField, DmmfModel } from './dmmf.js'
import { documentationText, fieldSchema } from './field-schema.js'
import type { ResolvedField } from './resolved.js'
import { didYouMean } from './suggest.js'

const KEY_TYPES = ['String', 'Int', 'BigInt']

/** A model's primary key: its `@id` field, or the fields of a compound `@@id([a, b])`. */
export interface PrimaryKey {
  fields: DmmfField[]
  /** Prisma's name of a compound key in a unique `where`, e.g. `projectId_userId`. */
  compound?: string
}

export function resolveId(model: DmmfModel, report: (text: string) => void): PrimaryKey | undefined {
  if (model.primaryKey) {
    const fields = model.primaryKey.fields.map((name) => model.fields.find((field) => field.name === name)!)
    const wrong = fields.filter((field) => !KEY_TYPES.includes(field.type))
    if (wrong.length > 0) {
      report(
        `${model.name}'s compound id @@id([${model.primaryKey.fields.join(', ')}]) holds ${wrong.map((field) => `"${field.name}" (${field.type})`).join(', ')}; entity tools need String, Int or BigInt id fields`,
      )
      return undefined
    }
    return { fields, compound: model.primaryKey.name ?? model.primaryKey.fields.join('_') }
  }
  const id = model.fields.find((field) => field.isId)
  if (!id) {
    report(`${model.name} has no @id field; entity tools address a row by its id, so give the model an @id (or an @@id of several fields)`)
    return undefined
  }
  if (!KEY_TYPES.includes(id.type)) {
    report(`${model.name}'s id "${id.name}" is ${id.type}; entity tools need a String, Int or BigInt @id`)
    return undefined
  }
  return { fields: [id] }
}

/** The owner or tenant field: a String, Int or BigInt scalar of the model. */
export function keyField(model: DmmfModel, option: 'ownerField' | 'tenantField', value: unknown, required: boolean, report: (text: string) => void): DmmfField | undefined {
  const scalars = model.fields.filter((field) => field.kind === 'scalar').map((field) => field.name)
  if (value === undefined) {
    if (required) {
      const hint = ownerHint(model)
      report(`ownerField is missing; an entity with tools needs the field holding the owning user's id${hint ? ` (e.g. ownerField: '${hint}')` : ''}, or set mcp: false`)
    }
    return undefined
  }
  if (typeof value !== 'string') {
    report(`${option} must be the name of a scalar field of ${model.name}`)
    return undefined
  }
  const field = model.fields.find((candidate) => candidate.name === value)
  if (!field) {
    report(
      `${option} "${value}" is not a field of ${model.name}${didYouMean(value, scalars)}; name the scalar field holding the ${option === 'ownerField' ? "owner's" : "tenant's"} id`,
    )
    return undefined
  }
  if (field.kind !== 'scalar' || field.isList) {
    const key = field.kind === 'object' && field.relationFromFields?.length === 1 ? field.relationFromFields[0] : undefined
    const what = field.kind === 'object' ? 'a relation' : field.isList ? 'a list' : `an ${field.kind}`
    report(`${option} "${value}" is ${what}, not a scalar field; name the field holding the id itself${key ? ` (${option}: '${key}')` : ''}`)
    return undefined
  }
  if (!KEY_TYPES.includes(field.type)) {
    report(`${option} "${value}" is ${field.type}; it must be a String, Int or BigInt field holding the id`)
    return undefined
  }
  return field
}

// The key of a relation to a User-like model is the likely owner field.
function ownerHint(model: DmmfModel): string | undefined {
  const relation = model.fields.find((field) => field.kind === 'object' && /^(user|owner|account|member)$/i.test(field.type) && field.relationFromFields?.length === 1)
  return relation?.relationFromFields?.[0]
}

export function resolveField(field: DmmfField, model: DmmfModel, enumValues: string[] | undefined): ResolvedField {
  const relation = model.fields.find((candidate) => candidate.kind === 'object' && candidate.relationFromFields?.length === 1 && candidate.relationFromFields[0] === field.name)
  const literal = typeof field.default === 'string' || typeof field.default === 'number' || typeof field.default === 'boolean'
  const plainDefault = literal && (enumValues !== undefined || ['String', 'Int', 'Float', 'Boolean'].includes(field.type))
  return {
    name: field.name,
    type: field.type,
    kind: field.kind === 'enum' ? 'enum' : 'scalar',
    isList: field.isList,
    isRequired: field.isRequired,
    hasDefault: field.hasDefaultValue,
    isId: field.isId,
    isUnique: field.isUnique,
    isUpdatedAt: field.isUpdatedAt,
    isTimestamp: field.isUpdatedAt || (isPlainObject(field.default) && field.default.name === 'now'),
    ...(plainDefault ? { default: field.default as string | number | boolean } : {}),
    ...(field.documentation && documentationText(field.documentation) ? { documentation: documentationText(field.documentation) } : {}),
    ...(enumValues ? { enumValues } : {}),
    ...(relation ? { references: relation.type } : {}),
    ...(field.nativeType ? { nativeType: field.nativeType[0] } : {}),
    ...(field.dbName && field.dbName !== field.name ? { column: field.dbName } : {}),
    schema: fieldSchema(field, enumValues),
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
