/**
 * Test fixtures derived from the tools' JSON Schemas: the same schema always yields the same
 * value (`"number 1"`, `1`, `"12.34"`, `"2026-01-02T03:04:05.000Z"`), so generated tests are
 * deterministic. Unique strings get a fresh suffix per row, since the tests create several.
 * @module
 */
import type { JsonSchema } from '@a2a-agent/runtime'
import type { ResolvedEntity, ResolvedField } from '../read/resolved.js'
import { camelCase } from '../names.js'
import { printLiteral, printObject, quote } from './literal.js'
import { entityNames } from './names.js'
import { isRequiredOnCreate, updatable } from './schemas.js'

const DECIMAL = '^-?\\d+(\\.\\d+)?$'
const DIGITS = '^-?\\d+$'

/** The fixture value of one schema: `variant` 1 for create, 2 for the update's change. */
export function fixtureValue(schema: JsonSchema, field: string, variant: 1 | 2 = 1): unknown {
  const types = ([] as unknown[]).concat(schema.type)
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value) => value !== null)
    return values[Math.min(variant, values.length) - 1]
  }
  // Json accepts objects and arrays alike; an object is the likelier shape.
  if (types.includes('object')) return { key: `value ${variant}` }
  if (types.includes('array')) return [fixtureValue(schema.items as JsonSchema, field, variant)]
  if (types.includes('integer')) return variant
  if (types.includes('number')) return variant + 0.5
  if (types.includes('boolean')) return variant === 1
  if (schema.format === 'date-time') return variant === 1 ? '2026-01-02T03:04:05.000Z' : '2026-02-03T04:05:06.000Z'
  if (schema.pattern === DECIMAL) return variant === 1 ? '12.34' : '56.78'
  if (schema.pattern === DIGITS) return variant === 1 ? '1234' : '5678'
  if (schema.contentEncoding === 'base64') return variant === 1 ? 'aGVsbG8=' : 'd29ybGQ='
  return `${field} ${variant}`
}

export interface Fixture {
  /** Statements before the object: rows the fixture refers to, made first. */
  setup: string[]
  /** The create arguments' object literal, as it reads after `return `. */
  literal: string
  async: boolean
  random: boolean
}

/**
 * The create arguments. A required key into another declared entity gets a real row, made through
 * that entity's create tool as alice (over MCP) before the object is built.
 */
export function createFixture(entity: ResolvedEntity, all: readonly ResolvedEntity[], caller: string): Fixture {
  const fixture: Fixture = { setup: [], literal: '', async: false, random: false }
  const entries = fixtureEntries(entity, all, caller, fixture, new Set([entity.name]), new Set())
  fixture.literal = printObject(entries, '  ', '  return '.length)
  return fixture
}

function fixtureEntries(entity: ResolvedEntity, all: readonly ResolvedEntity[], caller: string, fixture: Fixture, seen: Set<string>, names: Set<string>): string[] {
  return entity.writable.flatMap((field): string[] => {
    const referenced = field.references && all.find((other) => other.model === field.references && other.operations.includes('create'))
    if (field.references && !isRequiredOnCreate(field)) return []
    if (referenced && !seen.has(referenced.name)) {
      const nested = fixtureEntries(referenced, all, caller, fixture, new Set([...seen, referenced.name]), names)
      const name = freshName(camelCase(referenced.model), names)
      const start = `  const ${name} = await ${caller}.tool('alice', '${entityNames(referenced).operations.create.tool}', `
      fixture.setup.push(`${start}${printObject(nested, '  ', start.length, ')'.length)})`.trimStart())
      fixture.async = true
      return [`${field.name}: ${name}.${referenced.id.name}`]
    }
    const value = fixtureValue(field.schema, field.name)
    if (field.isUnique && value === `${field.name} 1`) {
      fixture.random = true
      return [`${field.name}: \`${field.name} \${randomUUID()}\``]
    }
    return [`${field.name}: ${printLiteral(value)}`]
  })
}

function freshName(base: string, taken: Set<string>): string {
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`
  taken.add(name)
  return name
}

/** The update's change: the first field an update may set that is not a key into another row. */
export function changeFixture(entity: ResolvedEntity): string {
  const field = updatable(entity).find((candidate) => !candidate.references && !candidate.isUnique) ?? updatable(entity).find((candidate) => !candidate.references)
  if (!field) return '{}'
  return `{ ${field.name}: ${printLiteral(fixtureValue(field.schema, field.name, 2))} }`
}

/** A value of the owner field's type, for the create that must be refused for naming an owner. */
export const ownerValue = (owner: ResolvedField): string => (owner.type === 'Int' ? '1' : quote(owner.type === 'BigInt' ? '1' : 'alice'))
