/**
 * Checks the entity declarations against the Prisma schema and resolves them into the model the
 * plan stage works from. Every problem is collected, so one run reports them all, each naming the
 * entity and the fix.
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'
import { GeneratorError } from '../errors.js'
import { delegateOf } from '../names.js'
import { checkCollisions, type EntityNames } from './collisions.js'
import type { Datamodel } from './dmmf.js'
import { isComparable, isKnownScalar } from './field-schema.js'
import { keyField, resolveField, resolveId } from './model-fields.js'
import { OPERATIONS, type ResolvedEntity } from './resolved.js'
import { didYouMean } from './suggest.js'

const OPTIONS = ['model', 'mcp', 'ownerField', 'tenantField', 'operations', 'namespace', 'hidden', 'readOnly', 'description']
// Entity names and namespaces become tool names, identifiers and file names.
const NAME = /^[A-Za-z][A-Za-z0-9_]*$/
const LIST_ARGUMENTS = ['page', 'limit', 'sort']
const EXAMPLE = "defineEntities({ invoices: { model: 'Invoice', ownerField: 'userId' } })"

interface Problem {
  entity: string
  text: string
}

/**
 * The entities with tools, resolved, in declaration order. Entities with `mcp: false` are checked
 * but left out: they have no tools, so nothing is generated for them. Throws one
 * {@link GeneratorError} listing every problem.
 */
export function validateEntities(declarations: unknown, datamodel: Datamodel, file: string): ResolvedEntity[] {
  if (!isPlainObject(declarations)) {
    throw new GeneratorError(`${file}: the entity declarations must be an object of entities, e.g. \`export default ${EXAMPLE}\``, file)
  }
  const problems: Problem[] = []
  const resolved: ResolvedEntity[] = []
  const named: EntityNames[] = []
  for (const [name, declaration] of Object.entries(declarations)) {
    const entity = resolveEntity(name, declaration, datamodel)
    problems.push(...entity.problems.map((text) => ({ entity: name, text })))
    if (entity.tools) named.push(entity.tools)
    if (entity.resolved) resolved.push(entity.resolved)
  }
  checkCollisions(named, (entity, text) => problems.push({ entity, text }))
  if (problems.length > 0) {
    const entities = [...new Set(problems.map((problem) => problem.entity))]
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`
    const lines = problems.map((problem) => `  - ${problem.entity}: ${problem.text}`)
    throw new GeneratorError([`${file}: ${count} in the entity declarations:`, ...lines].join('\n'), file, entities.length === 1 ? entities[0] : undefined)
  }
  return resolved
}

function resolveEntity(name: string, declaration: unknown, datamodel: Datamodel): { problems: string[]; resolved?: ResolvedEntity; tools?: EntityNames } {
  const problems: string[] = []
  const report = (text: string) => void problems.push(text)
  if (!isPlainObject(declaration)) {
    report(`the declaration must be an object, e.g. { model: 'Invoice', ownerField: 'userId' }`)
    return { problems }
  }
  const validName = NAME.test(name)
  if (!validName) report(`the entity name must start with a letter and hold only letters, digits and "_" (it becomes tool and file names); rename it`)
  for (const key of Object.keys(declaration)) {
    if (!OPTIONS.includes(key)) report(`unknown option "${key}"${didYouMean(key, OPTIONS)}; the options are ${OPTIONS.join(', ')}`)
  }
  const { model: modelName, mcp = true, ownerField, tenantField, namespace, description } = declaration
  if (typeof mcp !== 'boolean') report(`mcp must be true or false`)
  const validNamespace = namespace === undefined || (typeof namespace === 'string' && NAME.test(namespace))
  if (!validNamespace) report(`namespace must start with a letter and hold only letters, digits and "_"; fix it or remove it`)
  if (description !== undefined && typeof description !== 'string') report(`description must be a string`)
  const operations = resolveOperations(declaration.operations, report)
  const hidden = stringList(declaration.hidden, 'hidden', report)
  const readOnly = stringList(declaration.readOnly, 'readOnly', report)
  const withTools = mcp !== false

  const model = typeof modelName === 'string' ? datamodel.models.find((candidate) => candidate.name === modelName) : undefined
  if (typeof modelName !== 'string') {
    report(`model is missing; name the Prisma model the entity exposes, e.g. model: 'Invoice'`)
  } else if (!model) {
    const models = datamodel.models.map((candidate) => candidate.name)
    const suggestion = didYouMean(modelName, models)
    report(`model "${modelName}" is not in the Prisma schema${suggestion}; use one of its models${suggestion ? '' : ` (${models.join(', ') || 'it has none'})`}`)
  }
  const tools = validName && validNamespace && withTools ? { name, ...(typeof namespace === 'string' ? { namespace } : {}), operations } : undefined
  if (!model) return { problems, tools }

  const enums = new Map(datamodel.enums.map((candidate) => [candidate.name, candidate.values.map((value) => value.name)]))
  const fieldNames = model.fields.map((field) => field.name)
  for (const [option, list] of [['hidden', hidden], ['readOnly', readOnly]] as const) {
    for (const field of list) {
      if (!fieldNames.includes(field)) report(`${option} field "${field}" is not a field of ${model.name}${didYouMean(field, fieldNames)}; fix the name or remove it`)
    }
  }
  const id = resolveId(model, report)
  const owner = keyField(model, 'ownerField', ownerField, withTools, report)
  const tenant = tenantField === undefined ? undefined : keyField(model, 'tenantField', tenantField, true, report)
  if (owner && tenant && owner.name === tenant.name) report(`ownerField and tenantField are both "${owner.name}"; the tenant field must be another field`)
  if (id && hidden.includes(id.name) && operations.some((operation) => operation !== 'list' && operation !== 'create')) {
    report(`the id "${id.name}" is hidden, but ${operations.filter((op) => op !== 'list' && op !== 'create').join(', ')} address rows by it; remove it from hidden`)
  }
  if (!withTools || !id || !owner || problems.length > 0) return { problems, tools }

  const columns = model.fields
    .filter((field) => field.kind === 'enum' || (field.kind === 'scalar' && isKnownScalar(field.type)))
    .map((field) => resolveField(field, model, enums.get(field.type)))
  const keys = [owner.name, tenant?.name]
  const fields = columns.filter((field) => !hidden.includes(field.name))
  const writable = fields.filter(
    (field) => !readOnly.includes(field.name) && !(field.isId && field.hasDefault) && !keys.includes(field.name) && !field.isTimestamp,
  )
  if (operations.includes('list')) {
    // list's own arguments; a filter of the same name could not be told apart.
    for (const field of fields.filter((candidate) => LIST_ARGUMENTS.includes(candidate.name) && isComparable(candidate) && !keys.includes(candidate.name))) {
      report(`field "${field.name}" has the name of a list argument (${LIST_ARGUMENTS.join(', ')}); hide it (hidden: ['${field.name}']) or drop list from operations`)
    }
  }
  if (operations.includes('create')) {
    for (const field of columns) {
      const needed = field.isRequired && !field.hasDefault && !field.isList && !field.isTimestamp && !keys.includes(field.name)
      if (needed && !writable.includes(field)) {
        const why = hidden.includes(field.name) ? 'hidden' : 'readOnly'
        report(`create cannot set "${field.name}": it is required with no default, but ${why}; give it a @default, make it optional, or drop create from operations`)
      }
    }
  }
  if (problems.length > 0) return { problems, tools }
  const entityDescription = typeof description === 'string' ? description : model.documentation
  return {
    problems,
    tools,
    resolved: {
      name,
      ...(typeof namespace === 'string' ? { namespace } : {}),
      model: model.name,
      delegate: delegateOf(model.name),
      ...(entityDescription ? { description: entityDescription } : {}),
      id: columns.find((field) => field.name === id.name)!,
      owner: columns.find((field) => field.name === owner.name)!,
      ...(tenant ? { tenant: columns.find((field) => field.name === tenant.name)! } : {}),
      operations,
      columns,
      fields,
      writable,
    },
  }
}

function resolveOperations(value: unknown, report: (text: string) => void): EntityOperation[] {
  if (value === undefined) return [...OPERATIONS]
  const known = OPERATIONS as readonly string[]
  if (!Array.isArray(value)) {
    report(`operations must be an array of ${OPERATIONS.join(', ')}`)
    return []
  }
  for (const operation of value) {
    if (!known.includes(operation)) {
      report(`operation ${JSON.stringify(operation)} is not one of ${OPERATIONS.join(', ')}${typeof operation === 'string' ? didYouMean(operation, OPERATIONS) : ''}; remove it or use one of those`)
    }
  }
  if (value.length === 0) report(`operations is empty; list the operations agents may use, or set mcp: false`)
  return OPERATIONS.filter((operation) => value.includes(operation))
}

function stringList(value: unknown, option: string, report: (text: string) => void): string[] {
  if (value === undefined) return []
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value
  report(`${option} must be an array of field names`)
  return []
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
