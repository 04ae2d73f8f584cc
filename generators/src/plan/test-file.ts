/**
 * `test/entities/<entity>.gen.test.ts`: every declared operation over A2A and over MCP against the
 * running app, owner isolation between alice and bob, and the refusal mappings.
 * @module
 */
import type { ResolvedEntity, ResolvedField } from '../read/resolved.js'
import { notFoundMessage, notFoundText } from './entity-file.js'
import { OPERATIONS } from '../read/resolved.js'
import { pascalCase } from '../names.js'
import { callsInTenant, declaredScopes } from './access-file.js'
import { changeFixture, createFixture, freshFields, type OwnerIds, ownerValue, repeatRefused, requiredParents } from './fixtures.js'
import { testOwnerIds } from './owners.js'
import { printLiteral, quote } from './literal.js'
import { entityNames } from './names.js'
import { isRequiredOnCreate, operationSchema, PAGE_SIZE, updatable } from './schemas.js'
import { render } from './templates.js'

export function entityTestFile(entity: ResolvedEntity, all: readonly ResolvedEntity[], imports: { support: string; access: string; runtime: string }): string {
  const { support, runtime } = imports
  const owners = ownerLiterals(entity, all)
  const names = entityNames(entity)
  const has = (op: (typeof OPERATIONS)[number]) => entity.operations.includes(op)
  const caller = names.toolsFunction.replace(/Tools$/, '')
  const fixtureName = `new${pascalCase(entity.model)}`
  const aliceFixture = has('create') ? createFixture(entity, all, caller, owners) : undefined
  const crossUpdate = aliceFixture?.async && !aliceFixture.uses.db && has('update') && crossUpdateProbe(entity, all)
  // With that test the fixture takes the user who makes its rows, so bob can have rows of his own.
  const fixture = crossUpdate ? createFixture(entity, all, caller, owners, 'user') : aliceFixture
  const awaitFixture = fixture?.async ? 'await ' : ''
  const id = entity.id.name
  const idVisible = entity.key.every((field) => entity.fields.includes(field))
  const tools = Object.fromEntries(entity.operations.map((op) => [op, names.operations[op].tool]))
  const byId = entity.operations.filter((op) => op === 'get' || op === 'update' || op === 'delete')
  const missingKey = (field: ResolvedField) => missingValue(field.type, field.schema.format === 'uuid')
  const keyEntries = (value: (field: ResolvedField) => string) => entity.key.map((field) => `${field.name}: ${value(field)}`).join(', ')

  const crossReference = fixture?.async ? crossReferenceProbe(entity, all) : undefined
  const inTenant = callsInTenant(entity, all)
  const callLine = `const call: Call = (user, operation, args) => ${caller}.call(transport, user, operation, args)`
  const keyCallLine = `const call: Call<AccessKey> = (key, operation, args) => ${caller}ByKey.call(transport, key, operation, args)`
  return render('entity.gen.test.ts', {
    // Resolved per call: the caller only exists once beforeAll has run.
    callLine: wrapArrow(callLine),
    keyCallLine: wrapArrow(keyCallLine),
    uuid: fixture?.uses.uuid ?? false,
    fresh: fixture?.uses.fresh ?? false,
    // One row per owner: every test starts without the caller's, and a second create is refused.
    onePerOwner: has('create') && entity.onePerOwner && { delegate: entity.delegate, singular: names.singular },
    duplicate: has('create') && duplicateProbe(entity),
    missingReference: has('create') && missingReferenceProbe(entity, all),
    partialKey: has('create') && has('update') && partialKeyProbe(entity),
    tooLong: has('create') && tooLongProbe(entity),
    self: entity.owner.isId && has('get') && idVisible && { alice: owners.alice, bob: owners.bob, notFound: `${names.singular} ${owners.bob.replace(/'/g, '')} not found` },
    support,
    runtime,
    caller,
    skill: names.skill,
    toolsLiteral: printLiteral(tools, '', 'const tools = '.length),
    inTenant: inTenant && (entity.tenant?.isRequired ? `${entity.name} belong to a tenant` : `Its fixture makes rows that belong to a tenant`),
    access: accessTests(entity, all, imports.access, {
      tools,
      readable: (has('get') && idVisible) || (has('list') && idVisible && !entity.owner.isId),
      // Rows the fixture makes first are in the first tenant only when alice calls in it.
      tenantFixture: inTenant || !fixtureNeedsTenant(entity, all),
    }),
    entity: entity.name,
    singular: names.singular,
    create: has('create'),
    // Tests that need a row the generated code cannot make skip with the reason instead of failing.
    it: has('create') && entity.createTestsBlocked ? 'itCreates' : 'it',
    blocked: has('create') && entity.createTestsBlocked !== undefined && { comment: entity.createTestsBlocked, note: quote(entity.createTestsBlocked) },
    get: has('get') && idVisible,
    list: has('list'),
    // An owner that is the id is no list filter: the caller's rows are already the caller's.
    listById: has('list') && idVisible && !entity.owner.isId,
    update: has('update'),
    delete: has('delete'),
    fixtureName,
    fixtureParameters: crossUpdate ? "user: User = 'alice'" : '',
    fixtureAsync: fixture?.async ?? false,
    fixture: fixture?.literal ?? '{}',
    fixtureSetup: fixture?.setup ?? [],
    await: awaitFixture,
    ownedFixture: fixture?.async ? `(await ${fixtureName}())` : `${fixtureName}()`,
    changes: changeFixture(entity),
    id,
    pageSize: PAGE_SIZE,
    byIdOperations: idVisible && byId.length > 0 && printLiteral(byId),
    owner: entity.owner.name,
    ownerValue: ownerValue(entity.owner),
    // Template literals close with `}` right after a value, which Handlebars would read as `}}}`.
    key: { created: keyEntries((field) => `created.${field.name}`), mine: keyEntries((field) => `mine.${field.name}`) },
    notFound: { created: notFoundText(entity, (field) => `created.${field}`), mine: notFoundText(entity, (field) => `mine.${field}`) },
    missing: {
      args: `{ ${keyEntries(missingKey)} }`,
      text: notFoundMessage(entity, (name) => missingKey(entity.key.find((field) => field.name === name)!).replace(/'/g, '')),
    },
    invalid: invalidCall(entity),
    missingOperation: OPERATIONS.find((op) => !has(op)) ?? 'purge',
    operationList: entity.operations.join(', '),
    undeclaredTools: OPERATIONS.filter((op) => !has(op)).map((op) => names.operations[op].tool),
    crossReference,
    crossUpdate,
  })
}

/** An id value no row has, as a TypeScript literal: the largest Int or BigInt, the nil-like uuid, or `'missing-id'`. */
const missingValue = (type: string, uuid: boolean): string =>
  type === 'Int' ? '2147483647' : type === 'BigInt' ? "'9223372036854775807'" : uuid ? "'00000000-0000-4000-8000-000000000000'" : "'missing-id'"

/** A `const f = (...) => body` line at two spaces, its body on the next line when it does not fit (as prettier breaks it). */
const wrapArrow = (line: string) => (line.length + 2 <= 100 ? line : line.replace('=> ', '=>\n    '))

/**
 * What the entity's tests check with alice's API keys (test/access.gen.ts): per scope it declares,
 * the operations a key narrowed to it may call and the others it is refused; with none declared,
 * that a narrowed key reaches nothing; and what a second tenant of alice sees of her rows.
 */
function accessTests(
  entity: ResolvedEntity,
  all: readonly ResolvedEntity[],
  module: string,
  { tools, readable, tenantFixture }: { tools: Record<string, string>; readable: boolean; tenantFixture: boolean },
) {
  const own = [...new Set(OPERATIONS.flatMap((operation) => entity.scopes[operation] ?? []))]
  const scoped = own.map((scope) => {
    const allowed = entity.operations.filter((operation) => entity.scopes[operation]?.includes(scope))
    const denied = entity.operations.filter((operation) => !allowed.includes(operation))
    const lists = allowed.includes('list')
    const refused = denied.length > 0 ? `is refused ${denied.join(', ')}` : ''
    const title = `a key narrowed to ${scope} ${lists ? `lists ${entity.name}${refused && ` and ${refused}`}` : refused}`
    return {
      scope: quote(scope),
      title: quote(title),
      allowedTools: printLiteral(
        allowed.map((operation) => tools[operation]),
        '    ',
        `    expect(await listedTo(${quote(scope)})).toEqual(`.length,
        ')'.length,
      ),
      denied: denied.length > 0 && printLiteral(denied),
      lists,
      checked: lists || denied.length > 0,
    }
  })
  // Rows for the tenant tests come from create, and must be read back by id.
  const tenantRows = !entity.tenant?.references || entity.tenantModel !== undefined
  const tenant = entity.operations.includes('create') && !entity.owner.isId && readable && tenantFixture && tenantRows
  return {
    module,
    scoped,
    // Keys narrowed to other entities' scopes: this entity's tools are none of theirs.
    foreign:
      own.length > 0
        ? declaredScopes(all)
            .filter((scope) => !own.includes(scope))
            .map(quote)
        : [],
    unscoped: own.length === 0,
    operations: printLiteral(entity.operations),
    tenant: tenant && { separate: entity.tenant !== undefined },
  }
}

/** A create fixture that first makes a row of another entity kept per tenant: alice's session would make it in none. */
function fixtureNeedsTenant(entity: ResolvedEntity, all: readonly ResolvedEntity[]): boolean {
  return requiredParents(entity).some((model) => all.some((other) => other.model === model && other.tenant !== undefined))
}

/** A unique field to repeat in a second create: the refusal must name it. Not for one-row-per-owner models, refused first for that. */
function duplicateProbe(entity: ResolvedEntity): { field: string } | false {
  if (entity.onePerOwner) return false
  const fresh = freshFields(entity)
  const field = entity.writable.find(
    (candidate) => fresh.has(candidate.name) && !candidate.references && entity.fields.includes(candidate) && repeatRefused(entity, candidate, fresh),
  )
  return field ? { field: field.name } : false
}

/** A required key of the entity into another entity with create: its fields, the target's columns, and the target. */
interface CrossKey {
  fields: string[]
  /** The referenced columns, as the refusal names them (none for a key of one column: it names the value alone). */
  columns: string[] | undefined
  target: ResolvedEntity
}

/** The key the create fixture fills with a row it makes through the target's create tool. */
function crossKey(entity: ResolvedEntity, all: readonly ResolvedEntity[]): CrossKey | undefined {
  const creatable = (model: string | undefined) => all.find((other) => other.model === model && other.operations.includes('create'))
  const field = entity.writable.find((candidate) => isRequiredOnCreate(candidate) && creatable(candidate.references))
  if (field) return { fields: [field.name], columns: undefined, target: creatable(field.references)! }
  // A key of several columns, all sent (none the caller's own): named by the target's columns.
  const key = entity.compoundReferences.find(
    (candidate) => candidate.isRequired && creatable(candidate.references) && candidate.fields.every((name) => entity.writable.some((other) => other.name === name)),
  )
  return key && { fields: key.fields, columns: key.to, target: creatable(key.references)! }
}

/** What the server answers a key naming another owner's row, read from the object `from`: the row is not found, as if it did not exist. */
function crossNotFound({ fields, columns, target }: CrossKey, from: string): string {
  const { singular } = entityNames(target)
  if (!columns) return `\`${singular} \${${from}.${fields[0]}} not found\``
  const values = columns.map((column, index) => `${column} \${${from}.${fields[index]}}`)
  return `\`${singular} (${values.join(', ')}) not found\``
}

/** A create as bob with alice's fixture: its key names alice's row. */
function crossReferenceProbe(entity: ResolvedEntity, all: readonly ResolvedEntity[]): { singular: string; notFound: string } | undefined {
  const key = crossKey(entity, all)
  return key && { singular: entityNames(key.target).singular, notFound: crossNotFound(key, 'input') }
}

/**
 * An update of alice's row pointing its key at a row bob made: refused as not found. Only for a
 * key an update may send, into an entity of which bob can make a row per test (not one per owner).
 */
function crossUpdateProbe(entity: ResolvedEntity, all: readonly ResolvedEntity[]): { singular: string; entries: string; notFound: string } | false {
  const key = crossKey(entity, all)
  const sendable = new Set(updatable(entity).map((field) => field.name))
  if (!key || key.target.onePerOwner || !key.fields.every((name) => sendable.has(name))) return false
  return {
    singular: entityNames(key.target).singular,
    entries: key.fields.map((name) => `${name}: theirs.${name}`).join(', '),
    notFound: crossNotFound(key, 'theirs'),
  }
}

/**
 * A required key into a model that is not an entity, sent naming no row: the refusal must name the
 * key (a key of several columns by its relation and fields).
 */
function missingReferenceProbe(entity: ResolvedEntity, all: readonly ResolvedEntity[]): { title: string; entries: string; mentions: string } | false {
  const reference = entity.referenceRows.find(({ field }) => {
    const key = entity.writable.find((candidate) => candidate.name === field)
    return key && !all.some((other) => other.model === key.references)
  })
  if (reference) {
    // The column the key holds: the row's id, or the unique column its relation names.
    const { type, uuid } = entity.writable.find((candidate) => candidate.name === reference.field)?.referencedKey ?? reference.row.id
    return {
      title: `a ${reference.field} that names no row, naming the field`,
      entries: `${reference.field}: ${missingValue(type, uuid)}`,
      mentions: `toContain('${reference.field}')`,
    }
  }
  const composite = entity.compositeRows.find(({ key }) => !all.some((other) => other.model === key.references))
  if (!composite) return false
  const { relation, fields } = composite.key
  const sent = entity.writable.filter((field) => fields.includes(field.name))
  return {
    title: `a ${relation} (${fields.join(', ')}) that names no row, naming the relation and its fields`,
    entries: sent.map((field) => `${field.name}: ${missingValue(field.type, field.schema.format === 'uuid')}`).join(', '),
    mentions: `toMatch(/\\b${[relation, ...sent.map((field) => field.name)].join('\\b.*\\b')}\\b/)`,
  }
}

/** An update sending part of a key of several columns: refused, naming the field it lacks. */
function partialKeyProbe(entity: ResolvedEntity): { title: string; entries: string; missing: string } | false {
  const sendable = (fields: string[]) => updatable(entity).filter((field) => fields.includes(field.name))
  const key = entity.compoundReferences.find((candidate) => sendable(candidate.fields).length > 1)
  if (!key) return false
  const [missing, ...sent] = sendable(key.fields).reverse()
  return {
    title: `refuses part of the key ${key.relation} (${key.fields.join(', ')}), naming what is missing`,
    entries: sent
      .reverse()
      .map((field) => `${field.name}: created.${field.name}`)
      .join(', '),
    missing: `${missing!.name} is missing`,
  }
}

/** A string one character longer than its column holds: refused by the schema, naming the field. */
function tooLongProbe(entity: ResolvedEntity): { field: string; length: number } | false {
  const field = entity.writable.find((candidate) => typeof candidate.schema.maxLength === 'number' && !candidate.isList)
  return field ? { field: field.name, length: (field.schema.maxLength as number) + 1 } : false
}

/** The test owners' ids as the entity's owner column holds them, as TypeScript literals. */
export function ownerLiterals(entity: ResolvedEntity, all: readonly ResolvedEntity[]): OwnerIds {
  const ids = testOwnerIds(all)
  const literal = (id: string) => (entity.owner.type === 'Int' ? id : entity.owner.type === 'BigInt' ? `BigInt(${id})` : quote(id))
  return { alice: literal(ids.alice), bob: literal(ids.bob) }
}

/** A call its schema refuses, and the word the refusal must mention. */
function invalidCall(entity: ResolvedEntity): { operation: string; args: string; mentions: string } {
  if (entity.operations.includes('list')) return { operation: 'list', args: '{ page: 0 }', mentions: 'page' }
  const byId = entity.operations.find((op) => op !== 'create')
  if (byId) return { operation: byId, args: '{}', mentions: entity.id.name }
  const required = operationSchema(entity, 'create').required
  const first = Array.isArray(required) ? (required[0] as string | undefined) : undefined
  return first ? { operation: 'create', args: '{}', mentions: first } : { operation: 'create', args: '{ unknownArgument: 1 }', mentions: 'unknownArgument' }
}
