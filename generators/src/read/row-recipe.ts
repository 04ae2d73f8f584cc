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
 * instead of making one, any other (of one key or several, into an id, a compound id or a unique
 * column) creates its row along. Undefined when a row cannot be made generically (a required
 * Unsupported column, a cycle of required relations); `why` then gets the reason.
 */
export function rowRecipe(datamodel: Datamodel, model: DmmfModel, ownerModel: string | undefined, seen: readonly string[] = [], why: string[] = []): RowRecipe | undefined {
  const compound = model.primaryKey?.fields
  const id = compound ? model.fields.find((field) => field.name === compound[0]) : model.fields.find((field) => field.isId)
  if (!id) {
    why.push(`${model.name} has no id`)
    return undefined
  }
  if (seen.includes(model.name)) {
    why.push(`its required relations run in a cycle (${[...seen, model.name].join(' → ')})`)
    return undefined
  }
  const untyped = (field: DmmfField) => field.kind === 'unsupported' || (field.kind === 'scalar' && !isKnownScalar(field.type))
  const blocking = model.fields.find((field) => untyped(field) && field.isRequired && !field.hasDefaultValue)
  if (blocking) {
    why.push(`"${blocking.name}" is a required ${blocking.type} column of ${model.name}, which no generic code can fill`)
    return undefined
  }
  const enums = new Map(datamodel.enums.map((candidate) => [candidate.name, candidate.values.map((value) => value.name)]))
  const keys = new Set(model.fields.flatMap((field) => (field.kind === 'object' ? (field.relationFromFields ?? []) : [])))
  const relations: RowRecipe['relations'] = []
  for (const field of model.fields) {
    const from = field.relationFromFields ?? []
    if (field.kind !== 'object' || !field.isRequired || field.isList || from.length === 0) continue
    if (field.type === ownerModel && field.type !== model.name && from.length === 1) {
      relations.push({ field: field.name, key: from[0]!, target: 'owner', ownerId: field.relationToFields?.[0] ?? 'id' })
      continue
    }
    const target = datamodel.models.find((candidate) => candidate.name === field.type)
    const recipe = target && rowRecipe(datamodel, target, ownerModel, [...seen, model.name], why)
    if (!recipe) return undefined
    relations.push({ field: field.name, key: from[0]!, target: recipe })
  }
  const unique = (name: string) => (model.uniqueFields ?? []).some((set) => set.includes(name)) || (compound?.includes(name) ?? false)
  const needed = (field: DmmfField) =>
    (field.kind === 'scalar' || field.kind === 'enum') &&
    field.isRequired &&
    !field.hasDefaultValue &&
    !field.isUpdatedAt &&
    !keys.has(field.name) &&
    (field.kind === 'enum' || isKnownScalar(field.type))
  return {
    model: model.name,
    delegate: delegateOf(model.name),
    table: model.dbName ?? model.name,
    id: { name: id.name, type: id.type, uuid: id.nativeType?.[0] === 'Uuid', hasDefault: id.hasDefaultValue },
    ...(compound ? { compoundId: compound } : {}),
    columns: model.fields.filter(needed).map((field) => ({
      name: field.name,
      type: field.type,
      isList: field.isList,
      isUnique: field.isUnique || unique(field.name),
      ...(enums.has(field.type) ? { enumValues: enums.get(field.type)! } : {}),
      ...(field.nativeType ? { nativeType: field.nativeType[0] } : {}),
      schema: fieldSchema(field, enums.get(field.type)),
    })),
    relations,
  }
}

/** The recipe of an owner or tenant model, whose rows are named by one id (a compound id cannot be). */
export function keyedRowRecipe(datamodel: Datamodel, model: DmmfModel, ownerModel: string | undefined): RowRecipe | undefined {
  const recipe = rowRecipe(datamodel, model, ownerModel)
  return recipe?.compoundId ? undefined : recipe
}
