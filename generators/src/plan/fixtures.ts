/**
 * Test fixtures derived from the tools' JSON Schemas and the columns behind them: the same schema
 * always yields the same value (`"number 1"`, `1`, `"12.34"`, `"2026-01-02T03:04:05.000Z"`), so
 * generated tests are deterministic, and every value fits its column (lengths, uuids, dates).
 * Columns that must differ between rows (unique fields, unique field sets, ids without a default)
 * take `fresh()`, a counter the test file keeps, since the tests create several rows.
 * @module
 */
import type { JsonSchema } from '@a2a-agent/runtime'
import type { ResolvedEntity, ResolvedField, RowColumn, RowRecipe } from '../read/resolved.js'
import { camelCase } from '../names.js'
import { printLiteral, printObject, quote } from './literal.js'
import { entityNames } from './names.js'
import { isRequiredOnCreate, updatable } from './schemas.js'

const DECIMAL = '^-?\\d+(\\.\\d+)?$'
const DIGITS = '^-?\\d+$'

/** What a fixture value is made from: a tool argument's field or a column of a row recipe. */
type Column = Pick<ResolvedField, 'name' | 'schema' | 'nativeType'>

/** The fixture value of one column: `variant` 1 for create, 2 for the update's change. */
export function fixtureValue(column: Column, variant: 1 | 2 = 1): unknown {
  const { schema, name } = column
  const types = ([] as unknown[]).concat(schema.type)
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value) => value !== null)
    return values[Math.min(variant, values.length) - 1]
  }
  // Json accepts objects and arrays alike; an object is the likelier shape.
  if (types.includes('object')) return { key: `value ${variant}` }
  if (types.includes('array')) return [fixtureValue({ name, schema: schema.items as JsonSchema }, variant)]
  if (types.includes('integer')) return variant
  if (types.includes('number')) return variant + 0.5
  if (types.includes('boolean')) return variant === 1
  // A date column keeps no time of day.
  if (schema.format === 'date-time')
    return column.nativeType === 'Date' ? `202${5 + variant}-0${variant}-0${variant + 1}T00:00:00.000Z` : variant === 1 ? '2026-01-02T03:04:05.000Z' : '2026-02-03T04:05:06.000Z'
  if (schema.format === 'uuid') return `00000000-0000-4000-8000-00000000000${variant}`
  if (schema.pattern === DECIMAL) return variant === 1 ? '12.34' : '56.78'
  if (schema.pattern === DIGITS) return variant === 1 ? '1234' : '5678'
  if (schema.contentEncoding === 'base64') return variant === 1 ? 'aGVsbG8=' : 'd29ybGQ='
  return sized(column, name, String(variant))
}

/** `<name> <suffix>` cut to the column's length; a fixed-length (Char) column gets exactly its length. */
function sized(column: Column, name: string, suffix: string): string {
  const max = typeof column.schema.maxLength === 'number' ? column.schema.maxLength : Infinity
  let text = `${name} ${suffix}`
  if (text.length > max) text = `${name.slice(0, Math.max(0, max - suffix.length))}${suffix}`.slice(-max)
  return column.nativeType === 'Char' && Number.isFinite(max) ? text.padEnd(max, 'x') : text
}

/** A TypeScript expression for a value that differs on every call, or undefined for a column that cannot take one. */
function freshExpression(column: Column & { type: string }): string | undefined {
  const { schema } = column
  if (schema.format === 'uuid') return 'randomUUID()'
  if (column.type === 'Int' || column.type === 'BigInt') return column.type === 'Int' ? 'fresh()' : 'String(fresh())'
  if (column.type !== 'String' || Array.isArray(schema.enum)) return undefined
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  // Room for six digits of the counter; a fixed-length column is padded to its length.
  const prefix = `${column.name} `.slice(0, Math.max(0, Math.min(column.name.length + 1, max - 6)))
  if (column.nativeType === 'Char' && Number.isFinite(max)) return `String(fresh()).padStart(${max}, '0')`
  return prefix === '' ? 'String(fresh())' : `\`${prefix}\${fresh()}\``
}

export interface Fixture {
  /** Statements before the object: rows the fixture refers to, made first. */
  setup: string[]
  /** The create arguments' object literal, as it reads after `return `. */
  literal: string
  async: boolean
  /** Which helpers the fixture calls: `fresh()`, `randomUUID()`, the app's database. */
  uses: Uses
}

export interface Uses {
  fresh: boolean
  uuid: boolean
  db: boolean
}

/** The test owners' ids as their columns hold them (`1` or `'alice'`), by user. */
export type OwnerIds = Record<'alice' | 'bob', string>

/**
 * The create arguments. A required key gets a real row alice owns, made before the object is
 * built: through the referenced entity's create tool when it has one (over MCP), else straight in
 * the app's database. `user` is who makes the rows through tools: alice, or the fixture's `user`
 * parameter (a test then has bob make rows of his own).
 */
export function createFixture(entity: ResolvedEntity, all: readonly ResolvedEntity[], caller: string, owners: OwnerIds, user = "'alice'"): Fixture {
  const fixture: Fixture = { setup: [], literal: '', async: false, uses: { fresh: false, uuid: false, db: false } }
  const entries = fixtureEntries(entity, all, { caller, owners, user }, fixture, new Set([entity.name]), new Set())
  fixture.literal = printObject(entries, '  ', '  return '.length)
  return fixture
}

/** Who makes a fixture's rows: the entity caller's variable and the user it calls as, and the owners' ids for rows made in the database. */
interface Maker {
  caller: string
  owners: OwnerIds
  user: string
}

function fixtureEntries(entity: ResolvedEntity, all: readonly ResolvedEntity[], maker: Maker, fixture: Fixture, seen: Set<string>, names: Set<string>): string[] {
  const fresh = freshFields(entity)
  const { caller, owners, user } = maker
  // A row of an entity with create, made through its tool as the maker's user: its name in the fixture.
  const created = (referenced: ResolvedEntity) => {
    const nested = fixtureEntries(referenced, all, maker, fixture, new Set([...seen, referenced.name]), names)
    const name = freshName(camelCase(referenced.model), names)
    const start = `  const ${name} = await ${caller}.tool(${user}, '${entityNames(referenced).operations.create.tool}', `
    fixture.setup.push(`${start}${printObject(nested, '  ', start.length, ')'.length)})`.trimStart())
    fixture.async = true
    return name
  }
  const creatable = (model: string) => all.find((other) => other.model === model && other.operations.includes('create') && !seen.has(other.name))
  return entity.writable.flatMap((field): string[] => {
    if ((field.references || field.partOfKey) && !isRequiredOnCreate(field)) return []
    const referenced = field.references && creatable(field.references)
    if (referenced) return [`${field.name}: ${created(referenced)}.${field.referencedKey?.name ?? referenced.id.name}`]
    const key = entity.compoundReferences.find((candidate) => candidate.isRequired && candidate.fields.includes(field.name))
    if (key) {
      // The key's first field makes the row and fills them all (the owner and tenant among them come from the caller).
      const sent = entity.writable.filter((candidate) => key.fields.includes(candidate.name))
      if (sent[0] !== field) return []
      const fill = (row: string) => sent.map((candidate) => `${candidate.name}: ${row}.${key.to[key.fields.indexOf(candidate.name)]}`)
      const target = creatable(key.references)
      if (target) return fill(created(target))
      const composite = entity.compositeRows.find((candidate) => candidate.key.relation === key.relation)
      if (!composite) return []
      const name = freshName(camelCase(composite.row.model), names)
      const start = `  const ${name} = await app.db.${composite.row.delegate}.create({ data: `
      fixture.setup.push(`${start}${rowData(composite.row, owners.alice, fixture.uses, '  ', start.length)} })`.trimStart())
      fixture.async = true
      fixture.uses.db = true
      return fill(name)
    }
    const row = entity.referenceRows.find((reference) => reference.field === field.name)?.row
    if (row) {
      const name = freshName(camelCase(row.model), names)
      const start = `  const ${name} = await app.db.${row.delegate}.create({ data: `
      fixture.setup.push(`${start}${rowData(row, owners.alice, fixture.uses, '  ', start.length)} })`.trimStart())
      fixture.async = true
      fixture.uses.db = true
      return [`${field.name}: ${name}.${field.referencedKey?.name ?? row.id.name}`]
    }
    const expression = fresh.has(field.name) ? freshExpression(field) : undefined
    if (expression) {
      noteUse(expression, fixture.uses)
      return [`${field.name}: ${expression}`]
    }
    return [`${field.name}: ${printLiteral(fixtureValue(field))}`]
  })
}

/** The models whose rows a create fixture makes first: those its required keys (of one column or several) name. */
export function requiredParents(entity: ResolvedEntity): string[] {
  const single = entity.writable.flatMap((field) => (field.references !== undefined && isRequiredOnCreate(field) ? [field.references] : []))
  return [...single, ...entity.compoundReferences.filter((key) => key.isRequired).map((key) => key.references)]
}

/**
 * The fields that must differ between two rows of the caller's: unique ones, an id without a
 * default, and one field of each unique set in which nothing else differs (the owner does not;
 * a key to a row made per fixture does).
 */
export function freshFields(entity: ResolvedEntity): Set<string> {
  const fresh = new Set(entity.writable.filter((field) => field.isUnique || field.isId).map((field) => field.name))
  const varies = (name: string) =>
    fresh.has(name) || entity.writable.some((field) => field.name === name && (field.references !== undefined || field.partOfKey !== undefined) && isRequiredOnCreate(field))
  for (const set of entity.uniqueSets) {
    if (set.some(varies)) continue
    const candidate = entity.writable.find((field) => set.includes(field.name) && !field.references && !field.partOfKey && freshExpression(field) !== undefined)
    if (candidate) fresh.add(candidate.name)
  }
  return fresh
}

/**
 * Whether a second create repeating `field` (a fresh one) and otherwise a new fixture must be
 * refused: the field is unique alone, or in a unique set (or compound id) whose other members hold
 * the same non-null value in both rows. NULLs are distinct in PostgreSQL and SQLite, so a set with
 * a member the fixture leaves NULL (an optional key it leaves out, a nullable field agents cannot
 * write) takes both rows.
 */
export function repeatRefused(entity: ResolvedEntity, field: ResolvedField, fresh: ReadonlySet<string>): boolean {
  if (field.isUnique || (field.isId && !entity.compoundKey)) return true
  const same = (name: string): boolean => {
    if (name === field.name || name === entity.owner.name) return true
    if (name === entity.tenant?.name) return entity.tenant.isRequired
    const member = entity.columns.find((column) => column.name === name)
    if (!member) return false
    // A fixture sets every writable field but optional keys; keys and fresh fields differ per row.
    if (entity.writable.includes(member)) return member.references === undefined && member.partOfKey === undefined && !fresh.has(name)
    return member.isRequired && member.hasDefault && !member.isTimestamp
  }
  const sets = [...entity.uniqueSets, ...(entity.compoundKey ? [entity.compoundKey.fields] : [])]
  return sets.some((set) => set.includes(field.name) && set.every(same))
}

function noteUse(expression: string, uses: Uses): void {
  if (expression.includes('fresh()')) uses.fresh = true
  if (expression.includes('randomUUID()')) uses.uuid = true
}

/**
 * Prisma's create `data` for one row of `row`: sample values for its required columns (fresh
 * where they must be unique), the owner relation connected to `ownerId`, other required relations
 * created along.
 */
export function rowData(row: RowRecipe, ownerId: string, uses: Uses, indent: string, column: number, skip: readonly string[] = []): string {
  return printObject(rowEntries(row, ownerId, uses, indent, skip), indent, column, ' })'.length)
}

/** {@link rowData}'s entries, `key: expression`, without the columns in `skip`. */
export function rowEntries(row: RowRecipe, ownerId: string, uses: Uses, indent: string, skip: readonly string[] = []): string[] {
  const entries: string[] = []
  for (const field of row.columns) {
    if (skip.includes(field.name)) continue
    const fresh = field.isUnique || (field.name === row.id.name && !row.id.hasDefault) ? freshExpression(rowColumn(field)) : undefined
    if (fresh) noteUse(fresh, uses)
    entries.push(`${field.name}: ${fresh ?? printLiteral(fixtureValue(rowColumn(field)))}`)
  }
  for (const relation of row.relations) {
    const inner = `${indent}  `
    const value =
      relation.target === 'owner'
        ? `{ connect: { ${relation.ownerId ?? 'id'}: ${ownerId} } }`
        : `{ create: ${rowData(relation.target, ownerId, uses, inner, inner.length + `${relation.field}: { create: `.length)} }`
    entries.push(`${relation.field}: ${value}`)
  }
  return entries
}

const rowColumn = (field: RowColumn): Column & { type: string } => ({
  name: field.name,
  schema: field.schema,
  type: field.type,
  ...(field.nativeType ? { nativeType: field.nativeType } : {}),
})

function freshName(base: string, taken: Set<string>): string {
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`
  taken.add(name)
  return name
}

/** The update's change: the first field an update may set that is not a key into another row. */
export function changeFixture(entity: ResolvedEntity): string {
  const inUniqueSet = (field: ResolvedField) => field.isUnique || entity.uniqueSets.some((set) => set.includes(field.name))
  const candidates = updatable(entity).filter((candidate) => !candidate.references && !candidate.partOfKey)
  const field = candidates.find((candidate) => !inUniqueSet(candidate)) ?? candidates[0]
  if (!field) return '{}'
  return `{ ${field.name}: ${printLiteral(fixtureValue(field, 2))} }`
}

/** A value of the owner field's type, for the create that must be refused for naming an owner. */
export const ownerValue = (owner: ResolvedField): string =>
  owner.type === 'Int' ? '1' : quote(owner.type === 'BigInt' ? '1' : owner.schema.format === 'uuid' ? '00000000-0000-4000-8000-000000000001' : 'alice')
