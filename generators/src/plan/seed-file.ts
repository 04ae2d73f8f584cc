/**
 * `prisma/seed.ts` (yours, created once): a row of each owner model for every owner A2A_DEV_KEYS
 * names, made with the same recipe as the generated tests' owners (`test/owners.gen.ts`), so it
 * type-checks and runs for any owner model: Int, BigInt, uuid or cuid ids, ids not named `id`,
 * required columns without defaults, no `email`. While untouched it follows the schema.
 * @module
 */
import type { ResolvedEntity, RowRecipe } from '../read/resolved.js'
import type { Uses } from './fixtures.js'
import { ownerUpsert } from './owners.js'
import { render } from './templates.js'

const UUID = '/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i'

/**
 * The owner models: those of the declared entities, else `fallback` (the schema's `User`, which
 * is what a2a keys and an app without entities act on).
 */
export function seedOwnerModels(entities: readonly ResolvedEntity[], fallback?: RowRecipe): RowRecipe[] {
  const models = [...new Map(entities.flatMap((entity) => (entity.ownerModel ? [[entity.ownerModel.model, entity.ownerModel] as const] : []))).values()]
  return models.length > 0 ? models : fallback ? [fallback] : []
}

export function seedFile(models: readonly RowRecipe[], imports: { runtime: string; db: string }): string {
  const uses: Uses = { fresh: false, uuid: false, db: true }
  const creates = models.map((model) => ownerUpsert(model, uses))
  return render('seed.ts', {
    ...imports,
    owners: models.map((model) => model.model).join(' and '),
    uuid: uses.uuid,
    fresh: uses.fresh,
    creates,
    named: creates.some((create) => create.includes('${name}')),
    idCheck: idCheck(models),
  })
}

/** How the seed refuses owner names its owner ids cannot be: not numbers, or not uuids. */
function idCheck(models: readonly RowRecipe[]): { test: string; what: string; example: string } | false {
  const described = models.map((model) => `${model.model} ids (${model.id.name})`).join(' and ')
  if (models.some((model) => model.id.type !== 'String')) {
    return { test: '/^\\d+$/', what: `${described} are numbers`, example: "a number, e.g. A2A_DEV_KEYS=1:<alice's token>,2:<bob's token>" }
  }
  if (models.some((model) => model.id.uuid)) return { test: UUID, what: `${described} are uuids`, example: 'a uuid, e.g. 00000000-0000-4000-8000-0000000a11ce:<token>' }
  return false
}
