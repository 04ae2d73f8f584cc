/**
 * Checks the entity declarations against the Prisma schema and resolves them into the model the
 * plan stage works from. Every problem is collected, so one run reports them all, each naming the
 * entity and the fix.
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'
import { GeneratorError } from '../errors.js'
import { delegateOf, listOf } from '../names.js'
import { checkCollisions, type EntityNames } from './collisions.js'
import type { Datamodel, DmmfField, DmmfModel } from './dmmf.js'
import { documentationText, isComparable, isKnownScalar } from './field-schema.js'
import { keyField, resolveField, resolveId } from './model-fields.js'
import { type CompositeKey, OPERATIONS, type ResolvedEntity, type ResolvedField } from './resolved.js'
import { keyedRowRecipe, rowRecipe } from './row-recipe.js'
import { didYouMean } from './suggest.js'
import { looksLikeCredential } from './credentials.js'

const OPTIONS = ['model', 'mcp', 'ownerField', 'tenantField', 'operations', 'scopes', 'namespace', 'hidden', 'exposed', 'readOnly', 'writableReferences', 'description']
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
  // Models of entities with tools: a key into one of them is checked to name the caller's row.
  const entityModels = new Set(
    Object.values(declarations).flatMap((declaration) =>
      isPlainObject(declaration) && declaration.mcp !== false && typeof declaration.model === 'string' ? [declaration.model] : [],
    ),
  )
  // Models whose entity (as declared) has create: the generated tests make their rows through it.
  const creatable = new Set(
    Object.values(declarations).flatMap((declaration) =>
      isPlainObject(declaration) && entityModels.has(declaration.model as string) && (!Array.isArray(declaration.operations) || declaration.operations.includes('create'))
        ? [declaration.model as string]
        : [],
    ),
  )
  for (const [name, declaration] of Object.entries(declarations)) {
    const entity = resolveEntity(name, declaration, datamodel, entityModels, creatable)
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

function resolveEntity(
  name: string,
  declaration: unknown,
  datamodel: Datamodel,
  entityModels: ReadonlySet<string>,
  creatable: ReadonlySet<string>,
): { problems: string[]; resolved?: ResolvedEntity; tools?: EntityNames } {
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
  let operations = resolveOperations(declaration.operations, report)
  const scopes = resolveScopes(declaration.scopes, operations, report)
  const declaredHidden = stringList(declaration.hidden, 'hidden', report)
  const exposed = stringList(declaration.exposed, 'exposed', report)
  const readOnly = stringList(declaration.readOnly, 'readOnly', report)
  const openKeys = stringList(declaration.writableReferences, 'writableReferences', report)
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
  for (const [option, list] of [
    ['hidden', declaredHidden],
    ['exposed', exposed],
    ['readOnly', readOnly],
  ] as const) {
    for (const field of list) {
      if (!fieldNames.includes(field)) report(`${option} field "${field}" is not a field of ${model.name}${didYouMean(field, fieldNames)}; fix the name or remove it`)
    }
  }
  const targetOf = (key: string) => model.fields.find((field) => field.kind === 'object' && field.relationFromFields?.length === 1 && field.relationFromFields[0] === key)?.type
  // Relations of several columns (`fields: [binZone, binShelf]`): each names one row by all of them.
  const compoundKeys: CompositeKey[] = model.fields.flatMap((field) =>
    field.kind === 'object' && (field.relationFromFields?.length ?? 0) > 1
      ? [{ relation: field.name, references: field.type, fields: field.relationFromFields!, to: field.relationToFields ?? [], isRequired: field.isRequired }]
      : [],
  )
  for (const key of openKeys) {
    const single = targetOf(key)
    const targets = single ? [single] : [...new Set(compoundKeys.filter((candidate) => candidate.fields.includes(key)).map((candidate) => candidate.references))]
    if (!fieldNames.includes(key)) report(`writableReferences field "${key}" is not a field of ${model.name}${didYouMean(key, fieldNames)}; fix the name or remove it`)
    else if (targets.length === 0) report(`writableReferences field "${key}" is not a foreign key of ${model.name}; list only fields a relation's fields: [...] names`)
    for (const target of targets.filter((candidate) => entityModels.has(candidate)))
      report(`writableReferences field "${key}" references ${target}, a declared entity: agents may already set it, to one of their own rows; remove it from writableReferences`)
  }
  const primaryKey = resolveId(model, report)
  const owner = keyField(model, 'ownerField', ownerField, withTools, report)
  // Credentials are hidden unless exposed; a caller's own user row shows none of them at all.
  const selfRow = owner?.isId && targetOf(owner.name) === undefined
  const credentials = model.fields.filter(
    (field) => field.kind === 'scalar' && looksLikeCredential(field.name, field.type) && !field.isId && field.name !== ownerField && field.name !== tenantField,
  )
  for (const field of exposed.filter((name) => fieldNames.includes(name))) {
    const credential = credentials.some((candidate) => candidate.name === field)
    if (!credential) report(`exposed field "${field}" is not hidden by default (only fields named like credentials are); remove it from exposed`)
    else if (declaredHidden.includes(field)) report(`field "${field}" is both hidden and exposed; keep it in one of the two`)
    else if (selfRow) report(`exposed field "${field}" looks like a credential of the caller's own ${model.name} row, which agents never see; remove it from exposed`)
  }
  const autoHidden = credentials.map((field) => field.name).filter((name) => !declaredHidden.includes(name) && (selfRow || !exposed.includes(name)))
  const hidden = [...declaredHidden, ...autoHidden]
  const tenant = tenantField === undefined ? undefined : keyField(model, 'tenantField', tenantField, true, report)
  if (owner && tenant && owner.name === tenant.name) report(`ownerField and tenantField are both "${owner.name}"; the tenant field must be another field`)
  // What get, update and delete take to name a row: the id, or a compound id's fields but the
  // owner and tenant, which come from the caller.
  const address = primaryKey?.compound ? primaryKey.fields.filter((field) => field.name !== owner?.name && field.name !== tenant?.name) : (primaryKey?.fields ?? [])
  const byKey = operations.filter((op) => op !== 'list' && op !== 'create')
  for (const field of address.filter((candidate) => hidden.includes(candidate.name))) {
    if (byKey.length > 0) report(`the id "${field.name}" is hidden, but ${byKey.join(', ')} address rows by it; remove it from hidden`)
  }
  if (primaryKey?.compound && owner && address.length === 0 && byKey.length > 0) {
    report(`every field of ${model.name}'s compound id comes from the caller, so ${byKey.join(', ')} would have nothing to name a row by; keep only list and create in operations`)
  }
  if (!withTools || !primaryKey || !owner || problems.length > 0) return { problems, tools }

  const columns = model.fields
    .filter((field) => field.kind === 'enum' || (field.kind === 'scalar' && isKnownScalar(field.type)))
    .map((field) => resolveField(field, model, enums.get(field.type)))
    // A compound id's fields address the row as a single id does: not changed by an update.
    .map((field) => (address.some((candidate) => candidate.name === field.name) ? { ...field, isId: true } : field))
    .map((field) => withReferencedKey(field, model, datamodel))
    .map((field) => withCompositeKey(field, compoundKeys))
  const keys = [owner.name, tenant?.name]
  const notes: string[] = autoHidden.map((field) => `"${field}" is hidden: its name looks like a credential${selfRow ? '' : '; list it in exposed to show it to agents'}`)
  // Columns with no JSON form (Unsupported("…"), a scalar this generator does not know) are said, not skipped silently.
  const untyped = model.fields.filter((field) => field.kind === 'unsupported' || (field.kind === 'scalar' && !isKnownScalar(field.type)))
  // A required one stops create, which says so instead.
  const stopsCreate = (field: DmmfField) => field.isRequired && !field.hasDefaultValue && operations.includes('create')
  for (const field of untyped.filter((candidate) => !stopsCreate(candidate)))
    notes.push(`"${field.name}" is left out of the tools: agents cannot send or read its type, ${field.type}`)
  for (const index of datamodel.indexes ?? []) {
    if (index.model !== model.name || index.type !== 'fulltext') continue
    // A search index (MySQL's @@fulltext) is the database's business; no tool argument reads it.
    notes.push(`the @@fulltext index on ${index.fields.map((field) => field.name).join(', ')} is ignored: list filters by equality, never by full-text search`)
  }
  const fields = columns.filter((field) => !hidden.includes(field.name))
  // A key into a model that is not an entity has no ownership check: agents may set it only when
  // the declaration says so (otherwise anyone could attach a row to another user's team).
  const closed = (field: ResolvedField) => field.references !== undefined && !entityModels.has(field.references) && !openKeys.includes(field.name)
  const settable = fields.filter((field) => !readOnly.includes(field.name) && !(field.isId && field.hasDefault) && !keys.includes(field.name) && !field.isTimestamp)
  // A key of several columns is sent whole or not at all (the owner and tenant among its fields
  // come from the caller): agents send it only when they may set every other field of it, and
  // into a model that is not an entity, only when writableReferences lists them all.
  const shut = new Map<CompositeKey, { required: string; left: string }>()
  for (const key of compoundKeys) {
    const sent = key.fields.filter((name) => !keys.includes(name))
    const fixed = sent.filter((name) => !settable.some((field) => field.name === name))
    const listed = sent.filter((name) => openKeys.includes(name))
    const label = `"${key.relation}" (${key.fields.join(', ')})`
    if (fixed.length > 0) {
      const why = `${listOf(fixed)} ${fixed.length === 1 ? 'is' : 'are'} not theirs to set`
      shut.set(key, {
        required: `${label} is a required reference agents cannot send whole: ${why}`,
        left: `${label} is left out of the tools' arguments: agents cannot send it whole, as ${why}`,
      })
    } else if (entityModels.has(key.references)) continue
    else if (listed.length > 0 && listed.length < sent.length) {
      const unlisted = sent.filter((name) => !listed.includes(name))
      report(`writableReferences lists ${listOf(listed)} but not ${listOf(unlisted)}: ${label} names one ${key.references} row by all of them; list them all or none`)
    } else if (listed.length === 0) {
      const open = `add ${listOf(sent)} to writableReferences to let agents name any ${key.references} row`
      shut.set(key, {
        required: `${label} is a required reference to ${key.references}, which is not an entity (${open})`,
        left: `${label} is left out of the tools' arguments: it references ${key.references}, which is not an entity; ${open}`,
      })
    }
  }
  const shutOut = new Set([...shut.keys()].flatMap((key) => key.fields))
  const writable = settable.filter((field) => !closed(field) && !shutOut.has(field.name))
  const compoundReferences = compoundKeys.filter((key) => !shut.has(key) && key.fields.some((name) => !keys.includes(name)))
  // What stops a create, each with its way out.
  const blockers: string[] = []
  for (const [key, why] of shut) {
    if (key.isRequired) blockers.push(why.required)
    else if (operations.includes('create') || operations.includes('update')) notes.push(why.left)
  }
  for (const field of settable.filter(closed)) {
    const why = `"${field.name}" is a required reference to ${field.references}, which is not an entity (add it to writableReferences to let agents name any ${field.references} row)`
    if (field.isRequired && !field.hasDefault) blockers.push(why)
    else if (operations.includes('create') || operations.includes('update')) {
      notes.push(
        `"${field.name}" is left out of the tools' arguments: it references ${field.references}, which is not an entity; add it to writableReferences to let agents name any ${field.references} row`,
      )
    }
  }
  for (const field of untyped.filter((candidate) => candidate.isRequired && !candidate.hasDefaultValue)) {
    blockers.push(`"${field.name}" is a required ${field.type} column, which agents cannot send (give it a @default or make it optional)`)
  }
  // The owner is the row's id and no key to another model: each row is an owner itself (the
  // caller's own user row), made by sign-up, not by agents; deleting it is not a default either.
  if (selfRow) {
    blockers.push(`each ${model.name} row is its owner (ownerField "${owner.name}" is the id), so the caller's row exists before any agent call`)
    if (!Array.isArray(declaration.operations) && operations.includes('delete')) {
      operations = operations.filter((operation) => operation !== 'delete')
      notes.push(`no delete operation by default: it would delete the caller's own ${model.name} row; list delete in operations to offer it`)
    }
  }
  if (blockers.length > 0 && operations.includes('create')) {
    if (Array.isArray(declaration.operations)) report(`create cannot make a row: ${blockers.join('; ')}; drop create from operations`)
    else {
      operations = operations.filter((operation) => operation !== 'create')
      notes.push(`no create operation: ${blockers.join('; ')}`)
    }
  }
  if (operations.includes('list')) {
    // list's own arguments; a filter of the same name could not be told apart.
    for (const field of fields.filter((candidate) => LIST_ARGUMENTS.includes(candidate.name) && isComparable(candidate) && !keys.includes(candidate.name))) {
      report(`field "${field.name}" has the name of a list argument (${LIST_ARGUMENTS.join(', ')}); hide it (hidden: ['${field.name}']) or drop list from operations`)
    }
  }
  if (operations.includes('create')) {
    for (const field of columns) {
      const needed = field.isRequired && !field.hasDefault && !field.isList && !field.isTimestamp && !keys.includes(field.name)
      // A settable field left out is a key agents may not send: the blockers above say why.
      if (needed && !settable.includes(field)) {
        const why = autoHidden.includes(field.name)
          ? `hidden as a likely credential${selfRow ? '' : ` (list it in exposed to let agents send it)`}`
          : hidden.includes(field.name)
            ? 'hidden'
            : 'readOnly'
        report(`create cannot set "${field.name}": it is required with no default, but ${why}; give it a @default, make it optional, or drop create from operations`)
      }
    }
  }
  if (problems.length > 0) return { problems, tools }
  // The owner field's relation names the owner model; an owner that is the id and no key is the row itself.
  const ownerTarget = datamodel.models.find((candidate) => candidate.name === targetOf(owner.name)) ?? (owner.isId ? model : undefined)
  const ownerModel = ownerTarget && keyedRowRecipe(datamodel, ownerTarget, ownerTarget.name)
  const tenantTarget = tenant && datamodel.models.find((candidate) => candidate.name === targetOf(tenant.name))
  const tenantModel = tenantTarget && keyedRowRecipe(datamodel, tenantTarget, ownerTarget?.name)
  if (tenantTarget && !tenantModel)
    notes.push(
      `no tests of tenants: they cannot make a ${tenantTarget.name} row for tenantField "${tenant!.name}" (a required Unsupported column, a compound id or a cycle of required relations)`,
    )
  const referenceRows: ResolvedEntity['referenceRows'] = []
  let createTestsBlocked: string | undefined
  for (const field of writable.filter((candidate) => candidate.references !== undefined && candidate.isRequired && !candidate.hasDefault)) {
    const target = datamodel.models.find((candidate) => candidate.name === field.references)!
    const why: string[] = []
    const row = rowRecipe(datamodel, target, ownerTarget?.name, [], why)
    if (row) referenceRows.push({ field: field.name, row })
    else if (openKeys.includes(field.name))
      report(`writableReferences field "${field.name}": the generated tests cannot make a ${target.name} row for it (${why.join('; ')}); leave it out`)
    else if (!creatable.has(target.name) && operations.includes('create')) {
      createTestsBlocked ??= `the generated tests cannot make the ${target.name} row "${field.name}" needs: ${why.join('; ')}`
      notes.push(
        `the generated create tests need a ${target.name} row for "${field.name}" and cannot make one (${why.join('; ')}): they are skipped, saying so; declare an entity with create for ${target.name} to test them`,
      )
    }
  }
  // Keys of several columns: the tests make the referenced row first and copy its columns, through
  // the referenced entity's create tool when it has one.
  const compositeRows: ResolvedEntity['compositeRows'] = []
  const required = compoundReferences.filter((key) => key.isRequired)
  const shared = [...new Set(required.flatMap((key, index) => required.slice(index + 1).flatMap((other) => key.fields.filter((name) => other.fields.includes(name)))))]
  if (shared.length > 0 && operations.includes('create')) {
    const why = `${listOf(shared)} ${shared.length === 1 ? 'belongs' : 'belong'} to two required keys, whose rows they make one at a time`
    createTestsBlocked ??= `the generated tests cannot fill two keys that share a field: ${why}`
    notes.push(`the generated create tests cannot fill two keys that share a field (${why}): they are skipped, saying so`)
  }
  for (const key of required.filter((candidate) => !creatable.has(candidate.references))) {
    const target = datamodel.models.find((candidate) => candidate.name === key.references)!
    const why: string[] = []
    const taken = key.fields.filter((name) => keys.includes(name))
    if (taken.length > 0) why.push(`its key (${key.fields.join(', ')}) into ${target.name} holds ${taken.join(', ')}, which comes from the caller`)
    const row = taken.length === 0 ? rowRecipe(datamodel, target, ownerTarget?.name, [], why) : undefined
    if (row) compositeRows.push({ key, row })
    else if (operations.includes('create')) {
      createTestsBlocked ??= `the generated tests cannot make the ${target.name} row (${key.fields.join(', ')}) names: ${why.join('; ')}`
      notes.push(`the generated create tests need a ${target.name} row for (${key.fields.join(', ')}) and cannot make one (${why.join('; ')}): they are skipped, saying so`)
    }
  }
  if (problems.length > 0) return { problems, tools }
  const uniqueSets = (model.uniqueFields ?? []).filter((set) => set.length > 1)
  const keyNames = keys.filter((key): key is string => key !== undefined)
  const onePerOwner =
    owner.isId || owner.isUnique || [...uniqueSets, model.primaryKey?.fields ?? []].some((set) => set.length > 0 && set.every((field) => keyNames.includes(field)))
  const entityDescription = typeof description === 'string' ? description : model.documentation && documentationText(model.documentation)
  return {
    problems,
    tools,
    resolved: {
      name,
      ...(typeof namespace === 'string' ? { namespace } : {}),
      model: model.name,
      delegate: delegateOf(model.name),
      table: model.dbName ?? model.name,
      ...(entityDescription ? { description: entityDescription } : {}),
      id: columns.find((field) => field.name === (address[0] ?? primaryKey.fields[0]!).name)!,
      key: address.map((field) => columns.find((column) => column.name === field.name)!),
      ...(primaryKey.compound ? { compoundKey: { name: primaryKey.compound, fields: primaryKey.fields.map((field) => field.name) } } : {}),
      owner: columns.find((field) => field.name === owner.name)!,
      ...(tenant ? { tenant: columns.find((field) => field.name === tenant.name)! } : {}),
      operations,
      scopes: Object.fromEntries(
        operations.map((operation) => [operation, scopes.filter(([, allowed]) => allowed.includes(operation)).map(([scope]) => scope)]),
      ) as ResolvedEntity['scopes'],
      columns,
      fields,
      writable,
      uniqueSets,
      onePerOwner,
      referenceRows,
      compoundReferences,
      compositeRows,
      ...(createTestsBlocked && operations.includes('create') ? { createTestsBlocked } : {}),
      ...(ownerModel ? { ownerModel } : {}),
      ...(tenantModel ? { tenantModel } : {}),
      notes,
    },
  }
}

/** `field` marked as one column of a key of several, when a relation's fields hold it with others. */
function withCompositeKey(field: ResolvedField, keys: readonly CompositeKey[]): ResolvedField {
  const key = keys.find((candidate) => candidate.fields.includes(field.name))
  return key ? { ...field, partOfKey: key } : field
}

/** `field` with the unique column it references, when its relation names one that is not the id. */
function withReferencedKey(field: ResolvedField, model: DmmfModel, datamodel: Datamodel): ResolvedField {
  if (field.references === undefined) return field
  const relation = model.fields.find((candidate) => candidate.kind === 'object' && candidate.relationFromFields?.length === 1 && candidate.relationFromFields[0] === field.name)
  const target = datamodel.models.find((candidate) => candidate.name === field.references)
  const column = target?.fields.find((candidate) => candidate.name === relation?.relationToFields?.[0])
  if (!column || column.isId) return field
  return { ...field, referencedKey: { name: column.name, type: column.type, uuid: column.nativeType?.[0] === 'Uuid' } }
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
      report(
        `operation ${JSON.stringify(operation)} is not one of ${OPERATIONS.join(', ')}${typeof operation === 'string' ? didYouMean(operation, OPERATIONS) : ''}; remove it or use one of those`,
      )
    }
  }
  if (value.length === 0) report(`operations is empty; list the operations agents may use, or set mcp: false`)
  return OPERATIONS.filter((operation) => value.includes(operation))
}

/** The declared scope → operations pairs; each operation must be one the entity declares. */
function resolveScopes(value: unknown, operations: readonly EntityOperation[], report: (text: string) => void): [string, EntityOperation[]][] {
  if (value === undefined) return []
  const example = `e.g. scopes: { 'notes:read': ['list', 'get'], 'notes:write': ['create', 'update', 'delete'] }`
  if (!isPlainObject(value)) {
    report(`scopes must map each scope name to the operations it allows, ${example}`)
    return []
  }
  const pairs: [string, EntityOperation[]][] = []
  for (const [scope, allowed] of Object.entries(value)) {
    if (scope.trim() === '' || /\s/.test(scope)) report(`scope name ${JSON.stringify(scope)} must be a non-empty name without spaces`)
    if (!Array.isArray(allowed) || allowed.length === 0) {
      report(`scopes.${scope} must list the operations it allows, ${example}`)
      continue
    }
    for (const operation of allowed) {
      if (!(operations as readonly unknown[]).includes(operation)) {
        report(`scopes.${scope} allows ${JSON.stringify(operation)}, which is not one of this entity's operations (${operations.join(', ')}); remove it`)
      }
    }
    pairs.push([scope, operations.filter((operation) => allowed.includes(operation))])
  }
  return pairs
}

function stringList(value: unknown, option: string, report: (text: string) => void): string[] {
  if (value === undefined) return []
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value
  report(`${option} must be an array of field names`)
  return []
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
