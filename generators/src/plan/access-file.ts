/**
 * `test/access.gen.ts`: the API keys the generated tests call with besides alice's and bob's
 * sessions (narrowed to each declared scope, narrowed to all of them, two tenants of alice), and
 * `startAccessApp(db)`, which serves the entity tools to them on the test app's database.
 * @module
 */
import type { ResolvedEntity } from '../read/resolved.js'
import { OPERATIONS } from '../read/resolved.js'
import { requiredParents, type Uses } from './fixtures.js'
import { printKey, printLiteral, printObject } from './literal.js'
import { ownerUpsert } from './owners.js'
import { listOf } from '../names.js'
import { render } from './templates.js'

/** The key a test narrowed to every declared scope calls with; none of them when none is declared. */
export const NARROWED_KEY = 'narrowed'
export const TENANT_KEYS = { first: 'tenantA', second: 'tenantB' } as const

/** Every scope the entities declare, in the order they first allow an operation. */
export function declaredScopes(entities: readonly ResolvedEntity[]): string[] {
  const scopes = entities.flatMap((entity) => OPERATIONS.flatMap((operation) => entity.scopes[operation] ?? []))
  return [...new Set(scopes)]
}

/** Tenant ids that fit every tenant column and the rows it references: numbers, uuids or names. */
export function testTenantIds(entities: readonly ResolvedEntity[]): [string, string] {
  const tenants = entities.flatMap((entity) => (entity.tenant ? [entity.tenant] : []))
  if (tenants.some((tenant) => tenant.type !== 'String')) return ['1', '2']
  const uuid = tenants.some((tenant) => tenant.schema.format === 'uuid') || entities.some((entity) => entity.tenantModel?.id.uuid)
  return uuid ? ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'] : ['tenant-a', 'tenant-b']
}

/**
 * Whether the entity's tests call as alice and bob in a tenant (API keys) rather than as their
 * sessions: its tenant column is required, or its create fixture first makes a row of an entity
 * whose tenant column is, and a caller in no tenant reaches none of those rows.
 */
export function callsInTenant(entity: ResolvedEntity, all: readonly ResolvedEntity[], seen: ReadonlySet<string> = new Set()): boolean {
  if (entity.tenant?.isRequired) return true
  return requiredParents(entity).some((model) => {
    const referenced = all.find((other) => other.model === model && other.operations.includes('create') && !seen.has(other.name))
    return referenced ? callsInTenant(referenced, all, new Set([...seen, entity.name])) : false
  })
}

export function accessFile(entities: readonly ResolvedEntity[], imports: { runtime: string; tools: string; db: string }): string {
  const scopes = declaredScopes(entities)
  const [first, second] = testTenantIds(entities)
  const key = (name: string, owner: 'alice' | 'bob', entries: string[]) => {
    const start = `  ${printKey(name)}: `
    return `${start}${printObject([`owner: testOwners.${owner}`, ...entries], '  ', start.length, ','.length)},`
  }
  // A key narrowed to every scope is what shows that an entity declaring none is closed to such keys.
  const narrowed = entities.some((entity) => OPERATIONS.every((operation) => (entity.scopes[operation] ?? []).length === 0))
  const inTenant = entities.some((entity) => callsInTenant(entity, entities))
  const inFirst = `tenant: testTenants.${TENANT_KEYS.first}`
  // Where some entity's rows need a tenant, the narrowed keys act in the first one too.
  const narrowedIn = (scopeList: string[]) => [...(inTenant ? [inFirst] : []), `scopes: ${printLiteral(scopeList, '    ', '    scopes: '.length, ','.length)}`]
  const keys = [
    ...scopes.map((scope) => key(scope, 'alice', narrowedIn([scope]))),
    ...(narrowed ? [key(NARROWED_KEY, 'alice', narrowedIn(scopes))] : []),
    key(TENANT_KEYS.first, 'alice', [inFirst]),
    key(TENANT_KEYS.second, 'alice', [`tenant: testTenants.${TENANT_KEYS.second}`]),
    ...(inTenant ? (['alice', 'bob'] as const).map((user) => key(user, user, [inFirst])) : []),
  ]
  const narrowedTo = scopes.length > 0 ? 'all of them at once' : 'no scope (none is declared)'
  const kinds = [
    ...(scopes.length > 0 ? ['one narrowed to each scope the entities declare'] : []),
    ...(narrowed ? [`\`${NARROWED_KEY}\` to ${narrowedTo}`] : []),
    'full keys in two of her tenants',
  ]
  const listed = listOf(kinds)
  const summary = `The API keys of alice the generated tests call with besides her session: ${listed}.`
  const uses: Uses = { fresh: false, uuid: false, db: true }
  const tenanted = [...new Map(entities.flatMap((entity) => (entity.tenantModel ? [[entity.tenantModel.model, entity] as const] : []))).values()]
  const tenantModels = tenanted.map((entity) => entity.tenantModel!)
  // The tenants are alice's: a tenant row that must have an owner has her.
  const creates = tenanted.map((entity) => ownerUpsert(entity.tenantModel!, uses, ownerIdOf(entity, 'testOwners.alice')))
  return render('access.gen.ts', {
    ...imports,
    summary: wrapComment(summary),
    tenants: printLiteral({ [TENANT_KEYS.first]: first, [TENANT_KEYS.second]: second }, '', 'export const testTenants = '.length),
    keys: `{\n${keys.join('\n')}\n}`,
    inTenant,
    creates,
    tenantModels: tenantModels.map((model) => model.model).join(' and '),
    uuid: uses.uuid,
    fresh: uses.fresh,
    loop: creates.some((create) => create.includes('${name}')) ? '[name, id] of Object.entries(testTenants)' : 'id of Object.values(testTenants)',
  })
}

/** `expression` (a test owner's id, a string) as the entity's owner model keys its rows. */
function ownerIdOf(entity: ResolvedEntity, expression: string): string {
  const type = entity.ownerModel?.id.type
  return type === 'Int' ? `Number(${expression})` : type === 'BigInt' ? `BigInt(${expression})` : expression
}

/** A doc comment's text as ` * ` lines of at most 100 characters. */
function wrapComment(text: string): string {
  const lines: string[] = []
  for (const word of text.split(' ')) {
    const last = lines.at(-1)
    if (last !== undefined && ` * ${last} ${word}`.length <= 100) lines[lines.length - 1] = `${last} ${word}`
    else lines.push(word)
  }
  return lines.map((line) => ` * ${line}`).join('\n')
}
