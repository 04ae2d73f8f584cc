/**
 * Keys of several columns in a write's arguments. A relation like `@relation(fields: [binZone,
 * binShelf], references: [zone, shelf])` names one row by all its fields together: a write that
 * sends some of them names no row, so generated entity code refuses it before any query.
 * @module
 */
import { ToolError } from './entity-tool.js'

/** The fields of a key, each with a value: what {@link wholeKey} answers when the key is whole. */
export type WholeKey<Args, Field extends keyof Args> = { [K in Field]-?: NonNullable<Args[K]> }

/**
 * The key `fields` hold in `args` when the write sends all of them; undefined when it sends none,
 * or null for each (it names no row, or clears an optional relation). Anything between is refused
 * with a {@link ToolError} naming the fields that are missing (or null) and what to send instead.
 * @param names what the key names, for the refusal: `bin`.
 */
export function wholeKey<Args extends object, Field extends keyof Args & string>(args: Args, fields: readonly Field[], names: string): WholeKey<Args, Field> | undefined {
  const values = args as Record<Field, unknown>
  const missing = fields.filter((field) => values[field] === undefined)
  const nulls = fields.filter((field) => values[field] === null)
  if (missing.length === fields.length || nulls.length === fields.length) return undefined
  if (missing.length === 0 && nulls.length === 0) return args as unknown as WholeKey<Args, Field>
  const together = `${list(fields)} name one ${names} together`
  if (missing.length > 0) throw new ToolError(`${list(missing)} ${missing.length === 1 ? 'is' : 'are'} missing: ${together}, so send all of them or none`)
  throw new ToolError(`${list(nulls)} ${nulls.length === 1 ? 'is' : 'are'} null while the others are not: ${together}, so set all of them or none to null`)
}

// `a`, `a and b`, `a, b and c`.
const list = (names: readonly string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!)
