/**
 * The models whose rows are owners: what an entity's ownerField points at. `a2a keys create`
 * checks a key's user against them, so a key never acts as an owner that does not exist.
 * @module
 */
import { defaultSchemaPath } from '../inputs.js'
import { delegateOf } from '../names.js'
import type { DmmfModel } from './dmmf.js'
import { loadDeclarations } from './declarations.js'
import { readPrismaSchema } from './prisma-schema.js'

export interface OwnerModel {
  /** The Prisma model, e.g. `User`. */
  model: string
  /** Its Prisma client property, e.g. `user`. */
  delegate: string
  /** Its id field and that field's scalar type (`String`, `Int`, `BigInt`). */
  id: { name: string; type: string }
}

/**
 * The owner models of the app's declared entities, in declaration order without repeats; when no
 * entity names one, the schema's `User` model (the scaffolded apps' owner), if any.
 */
export async function ownerModels(appRoot: string): Promise<OwnerModel[]> {
  const { datamodel } = await readPrismaSchema(appRoot, await defaultSchemaPath(appRoot))
  const byName = new Map(datamodel.models.map((model) => [model.name, model]))
  const declarations = await loadDeclarations(appRoot).catch(() => ({}))
  const names = new Set<string>()
  for (const declaration of Object.values(isRecord(declarations) ? declarations : {})) {
    if (!isRecord(declaration) || typeof declaration.model !== 'string' || typeof declaration.ownerField !== 'string') continue
    const model = byName.get(declaration.model)
    const owner = model && ownerOf(model, declaration.ownerField)
    if (owner) names.add(owner)
  }
  if (names.size === 0 && byName.has('User')) names.add('User')
  return [...names].flatMap((name) => {
    const model = byName.get(name)!
    const id = model.fields.find((field) => field.isId && field.kind === 'scalar')
    return id ? [{ model: name, delegate: delegateOf(name), id: { name: id.name, type: id.type } }] : []
  })
}

/** The model `ownerField` refers to: its relation's model, or the model itself when it is the id. */
function ownerOf(model: DmmfModel, ownerField: string): string | undefined {
  const relation = model.fields.find((field) => field.kind === 'object' && field.relationFromFields?.length === 1 && field.relationFromFields[0] === ownerField)
  if (relation) return relation.type
  return model.fields.find((field) => field.name === ownerField)?.isId ? model.name : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
