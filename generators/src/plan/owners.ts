/**
 * `test/owners.gen.ts`: the owners the generated tests act as, derived from the owner model (its
 * table, its id type and the columns it requires), and `createOwners(db)`, which makes their rows.
 * The tests' support file (yours) calls it after migrating a test database.
 * @module
 */
import type { ResolvedEntity, RowRecipe } from '../read/resolved.js'
import { rowEntries, type Uses } from './fixtures.js'
import { printLiteral, printObject, quote } from './literal.js'
import { render } from './templates.js'

/** Principal ids for alice and bob that fit every owner column: numbers, uuids or names. */
export function testOwnerIds(entities: readonly ResolvedEntity[]): Record<'alice' | 'bob', string> {
  if (entities.some((entity) => entity.owner.type !== 'String')) return { alice: '1', bob: '2' }
  const uuid = entities.some((entity) => entity.owner.schema.format === 'uuid' || entity.ownerModel?.id.uuid)
  return uuid ? { alice: '00000000-0000-4000-8000-0000000a11ce', bob: '00000000-0000-4000-8000-000000000b0b' } : { alice: 'alice', bob: 'bob' }
}

export function ownersFile(entities: readonly ResolvedEntity[], db: string): string {
  const ids = testOwnerIds(entities)
  const models = [...new Map(entities.flatMap((entity) => (entity.ownerModel ? [[entity.ownerModel.model, entity.ownerModel] as const] : []))).values()]
  const uses: Uses = { fresh: false, uuid: false, db: true }
  const creates = models.map((model) => ownerUpsert(model, uses))
  const described = models.map((model) => `${model.model} (table ${quote(model.table)}, ${model.id.type} ids)`)
  return render('owners.gen.ts', {
    db,
    uuid: uses.uuid,
    fresh: uses.fresh,
    ids: printLiteral(ids),
    numeric: ids.alice === '1',
    owners: described.length > 0 ? described.join(' and ') : false,
    param: creates.length > 0 ? 'db' : '_db',
    creates,
    // Unique columns take the owner's name, so alice's and bob's rows differ.
    loop: creates.some((create) => create.includes('${name}')) ? '[name, id] of Object.entries(testOwners)' : 'id of Object.values(testOwners)',
  })
}

/**
 * One row of `model` by `id`, made unless it exists; unique columns take `name`, so the rows of
 * alice and bob (or of two test tenants) differ. Code for a loop over `[name, id]` pairs; a
 * required relation to the owner model connects to `owner` (by default the row's own id).
 */
export function ownerUpsert(model: RowRecipe, uses: Uses, owner?: string): string {
  const id = model.id.type === 'String' ? 'id' : model.id.type === 'BigInt' ? 'BigInt(id)' : 'Number(id)'
  const unique = model.columns.filter((column) => column.isUnique && column.name !== model.id.name)
  const perOwner = unique.map((column) => {
    const max = typeof column.schema.maxLength === 'number' ? column.schema.maxLength : Infinity
    if (column.type === 'String' && /email/i.test(column.name) && max >= 17) return `${column.name}: \`\${name}@example.com\``
    if (column.type === 'String' && column.schema.format !== 'uuid') return `${column.name}: \`${column.name.slice(0, Math.max(0, max - 6))}-\${name}\``
    if (column.type === 'Int') return `${column.name}: Number(id)`
    uses.uuid = true
    return `${column.name}: randomUUID()`
  })
  const rest = rowEntries(model, owner ?? id, uses, '      ', [model.id.name, ...unique.map((column) => column.name)])
  const idEntry = model.id.name === id ? id : `${model.id.name}: ${id}`
  const create = printObject([idEntry, ...perOwner, ...rest], '      ', '      create: '.length, ','.length)
  return `await db.${model.delegate}.upsert({
      where: { ${idEntry} },
      update: {},
      create: ${create},
    })`
}
