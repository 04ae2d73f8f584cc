/**
 * The TypeScript input type of every entity operation, made by json-schema-to-typescript from the
 * operation's schema, unformatted (`formatTypeBlocks` formats them). All in one compile: its fixed
 * cost per call (cloning, dereferencing, normalising) dominated a run when each of the ~250
 * schemas of a 50-model app paid it. The compiled schema holds each operation's schema as a
 * property titled with the type's name, which makes that schema an interface of that name, as
 * compiling it alone does. Should the output not be exactly those interfaces, in that order, each
 * schema is compiled alone instead.
 * @module
 */
import { compile, type JSONSchema, type Options } from 'json-schema-to-typescript'
import type { ResolvedEntity } from '../read/resolved.js'
import { entityNames } from './names.js'
import { operationSchema } from './schemas.js'

const OPTIONS: Partial<Options> = { bannerComment: '', additionalProperties: false, unknownAny: true, strictIndexSignatures: false, format: false }
const WRAPPER = 'A2AEveryInputType'

export interface Operation {
  entity: number
  name: string
  schema: JSONSchema
}

/** Per entity, the input types of its operations in declaration order, blank-line separated. */
export async function inputTypes(entities: readonly ResolvedEntity[]): Promise<string[]> {
  const operations = operationsOf(entities)
  const types = (await compiledTogether(operations)) ?? (await compiledAlone(operations))
  return entities.map((_, index) => types.filter((_type, i) => operations[i]?.entity === index).join('\n\n'))
}

/** Every operation of every entity, in declaration order. */
export function operationsOf(entities: readonly ResolvedEntity[]): Operation[] {
  return entities.flatMap((entity, index) =>
    entity.operations.map((op) => ({ entity: index, name: entityNames(entity).operations[op].input, schema: operationSchema(entity, op) as JSONSchema })),
  )
}

export async function compiledAlone(operations: readonly Operation[]): Promise<string[]> {
  const types: string[] = []
  for (const { name, schema } of operations) types.push((await compile(structuredClone(schema), name, OPTIONS)).trimEnd())
  return types
}

/** The types of `compiledAlone`, from one compile; undefined when the output is not what that gives. */
export async function compiledTogether(operations: readonly Operation[]): Promise<string[] | undefined> {
  if (operations.length === 0) return []
  const properties: Record<string, JSONSchema> = {}
  for (const { name, schema } of operations) properties[name] = { ...structuredClone(schema), title: name }
  const wrapper: JSONSchema = { type: 'object', properties, required: Object.keys(properties), additionalProperties: false }
  const output = await compile(wrapper, WRAPPER, OPTIONS)
  // The wrapper's own interface comes first; every declaration after it starts a line with `export `.
  const declarations = output
    .trim()
    .split(/\n(?=export )/)
    .map((declaration) => declaration.trim())
  const [first, ...rest] = declarations
  const expected = (declaration: string | undefined, name: string) => declaration?.startsWith(`export interface ${name} {`) === true
  if (!expected(first, WRAPPER) || rest.length !== operations.length) return undefined
  return rest.every((declaration, i) => expected(declaration, operations[i]?.name ?? '')) ? rest : undefined
}
