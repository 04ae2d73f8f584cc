/**
 * `test/access.gen.ts`: the API keys the generated tests call with besides alice's and bob's
 * sessions (narrowed to each declared scope, narrowed to all of them, two tenants of alice), and
 * `startAccessApp(db)`, which serves the entity tools to them on the test app's database.
 * @module
 */
import type { ResolvedEntity } from '../read/resolved.js'
import { OPERATIONS } from '../read/resolved.js'
import { printKey, printLiteral, printObject, quote } from './literal.js'
import { render } from './templates.js'

/** The key a test narrowed to every declared scope calls with; none of them when none is declared. */
export const NARROWED_KEY = 'narrowed'
export const TENANT_KEYS = { first: 'tenantA', second: 'tenantB' } as const

/** Every scope the entities declare, in the order they first allow an operation. */
export function declaredScopes(entities: readonly ResolvedEntity[]): string[] {
  const scopes = entities.flatMap((entity) => OPERATIONS.flatMap((operation) => entity.scopes[operation] ?? []))
  return [...new Set(scopes)]
}

/** Tenant ids that fit every tenant column: numbers, uuids or names. */
export function testTenantIds(entities: readonly ResolvedEntity[]): [string, string] {
  const tenants = entities.flatMap((entity) => (entity.tenant ? [entity.tenant] : []))
  if (tenants.some((tenant) => tenant.type !== 'String')) return ['1', '2']
  if (tenants.some((tenant) => tenant.schema.format === 'uuid')) return ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b']
  return ['tenant-a', 'tenant-b']
}

export function accessFile(entities: readonly ResolvedEntity[], imports: { runtime: string; tools: string; db: string }): string {
  const scopes = declaredScopes(entities)
  const [first, second] = testTenantIds(entities)
  const key = (name: string, entry: string) => {
    const start = `  ${printKey(name)}: `
    return `${start}${printObject(['owner: testOwners.alice', entry], '  ', start.length, ','.length)},`
  }
  // A key narrowed to every scope is what shows that an entity declaring none is closed to such keys.
  const narrowed = entities.some((entity) => OPERATIONS.every((operation) => (entity.scopes[operation] ?? []).length === 0))
  const keys = [
    ...scopes.map((scope) => key(scope, `scopes: [${quote(scope)}]`)),
    ...(narrowed ? [key(NARROWED_KEY, `scopes: ${printLiteral(scopes, '    ', '    scopes: '.length, ','.length)}`)] : []),
    key(TENANT_KEYS.first, `tenant: ${quote(first)}`),
    key(TENANT_KEYS.second, `tenant: ${quote(second)}`),
  ]
  const narrowedTo = scopes.length > 0 ? 'all of them at once' : 'no scope (none is declared)'
  const kinds = [
    ...(scopes.length > 0 ? ['one narrowed to each scope the entities declare'] : []),
    ...(narrowed ? [`\`${NARROWED_KEY}\` to ${narrowedTo}`] : []),
    'full keys in two of her tenants',
  ]
  const listed = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds[0]
  const summary = `The API keys of alice the generated tests call with besides her session: ${listed}.`
  return render('access.gen.ts', { ...imports, summary: wrapComment(summary), keys: `{\n${keys.join('\n')}\n}` })
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
