/**
 * Row recipes: what a test (or a seed) must send to create one row of a model the agents do not
 * write themselves, such as the owner model or a workspace a project names. Only what the database
 * requires: required columns without a default, and required relations, made the same way.
 * @module
 */
import { delegateOf } from '../names.js'
import type { Datamodel, DmmfField, DmmfModel } from './dmmf.js'
import { fieldSchema, isKnownScalar } from './field-schema.js'
import type { RowRecipe } from './resolved.js'

/**
 * The recipe of `model`; a required relation into `ownerModel` connects to the caller's owner row
 * instead of making one. Undefined when a row cannot be made generically (a required
 * Unsupported column, a compound key, a relation cycle).
 */
export function rowRecipe(datamodel: Datamodel, model: DmmfModel, ownerModel: string | undefined, seen: readonly string[] = []): RowRecipe | undefined {
  const id = model.fields.find((field) => field.isId)
  if (!id || model.primaryKey || seen.includes(model.name)) return undefined
  const untyped = (field: DmmfField) => field.kind === 'unsupported' || (field.kind === 'scalar' && !isKnownScalar(field.type))
  if (model.fields.some((field) => untyped(field) && field.isRequired && !field.hasDefaultValue)) return undefined
  const enums = new Map(datamodel.enums.map((candidate) => [candidate.name, candidate.values.map((value) => value.name)]))
  const keys = new Set(model.fields.flatMap((field) => (field.kind === 'object' ? (field.relationFromFields ?? []) : [])))
  const relations: RowRecipe['relations'] = []
  for (const field of model.fields) {
    if (field.kind !== 'object' || !field.isRequired || field.isList || (field.relationFromFields ?? []).length !== 1) continue
    const key = field.relationFromFields![0]!
    if (field.type === ownerModel && field.type !== model.name) {
      relations.push({ field: field.name, key, target: 'owner', ownerId: field.relationToFields?.[0] ?? 'id' })
      continue
    }
    const target = datamodel.models.find((candidate) => candidate.name === field.type)
    const recipe = target && rowRecipe(datamodel, target, ownerModel, [...seen, model.name])
    if (!recipe) return undefined
    relations.push({ field: field.name, key, target: recipe })
  }
  const needed = (field: DmmfField) =>
    (field.kind === 'scalar' || field.kind === 'enum') && field.isRequired && !field.hasDefaultValue && !field.isUpdatedAt && !keys.has(field.name) && (field.kind === 'enum' || isKnownScalar(field.type))
  return {
    model: model.name,
    delegate: delegateOf(model.name),
    table: model.dbName ?? model.name,
    id: { name: id.name, type: id.type, uuid: id.nativeType?.[0] === 'Uuid', hasDefault: id.hasDefaultValue },
    columns: model.fields.filter(needed).map((field) => ({
      name: field.name,
      type: field.type,
      isList: field.isList,
      isUnique: field.isUnique || (model.uniqueFields ?? []).some((set) => set.includes(field.name)),
      ...(enums.has(field.type) ? { enumValues: enums.get(field.type)! } : {}),
      ...(field.nativeType ? { nativeType: field.nativeType[0] } : {}),
      schema: fieldSchema(field, enums.get(field.type)),
    })),
    relations,
  }
}
