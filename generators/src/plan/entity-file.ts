/**
 * `src/a2a/<entity>.gen.ts`: the entity's argument schemas, the input types generated from them,
 * the owner-scoped data operations on `db.<delegate>` and the `EntityTool` list. Only declared
 * operations are emitted, and only the helpers they use.
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'
import type { CompositeKey, ResolvedEntity, ResolvedField } from '../read/resolved.js'
import { toolDescription } from './descriptions.js'
import { hasBytes, inputExpression, needsDecimal, needsJsonInput, presentExpression, rowType } from './field-code.js'
import { printLiteral, printObject, printUnionAlias, quote } from './literal.js'
import { entityNames } from './names.js'
import { listOf, pascalCase, words } from '../names.js'
import { filterable, isRequiredOnCreate, keyNames, operationSchema, PAGE_SIZE, updatable } from './schemas.js'
import { render } from './templates.js'

/** A writable foreign key whose model is a declared entity: it must name one of the caller's rows. */
interface Reference {
  field: ResolvedField
  target: ResolvedEntity
}

/**
 * A key of several columns a write may send, whole or not at all; into a declared entity
 * (`target`), it must name one of the caller's rows.
 */
interface CompoundReference {
  key: CompositeKey
  target?: ResolvedEntity
}

export interface EntityFileImports {
  runtime: string
  /** Relative specifier of the module exporting `Db`, e.g. `../db.js`. */
  db: string
  /** Relative specifier of the entity's hooks, e.g. `./hooks/invoices.js`. */
  hooks: string
  /** Relative specifier of the shared refusal mapping, e.g. `./refusals.gen.js`. */
  refusals: string
}

// The update's own variables: a key field of the same name is bound as `<name>Key` instead.
const LOCALS = new Set(['args', 'changes', 'context', 'current', 'data', 'db', 'row'])

const WRITES: Record<string, string> = { create: 'beforeCreate', update: 'beforeUpdate', delete: 'beforeDelete' }

/** The hooks an entity's operations call, in file order. */
export const hooksOf = (entity: ResolvedEntity): string[] => entity.operations.flatMap((op) => (WRITES[op] ? [WRITES[op]] : []))

/**
 * @param types the entity's input types (`inputTypes`), formatted.
 * @param owned the declared entities by model: a foreign key into one of them is checked to name a
 *   row of the caller's, so nobody links their invoice to another owner's customer.
 */
export function entityFile(entity: ResolvedEntity, types: string, imports: EntityFileImports, owned: ReadonlyMap<string, ResolvedEntity> = new Map()): string {
  const names = entityNames(entity)
  const references: Reference[] = entity.writable.flatMap((field) => {
    const target = field.references === undefined ? undefined : owned.get(field.references)
    return target ? [{ field, target }] : []
  })
  const compounds: CompoundReference[] = entity.compoundReferences.map((key) => ({ key, target: owned.get(key.references) }))
  const compoundCode = compoundChecks(entity, compounds)
  const ops = entity.operations
  const has = (op: EntityOperation) => ops.includes(op)
  const tools = ops.map((op) => {
    const opNames = names.operations[op]
    const prefix = `export const ${opNames.schema} = `
    return {
      ...opNames,
      operation: op,
      schemaLiteral: printLiteral(operationSchema(entity, op), '', prefix.length, ' as const'.length),
      description: longProperty('description', quote(toolDescription(entity, op)), '      '),
      scopes: `[${(entity.scopes[op] ?? []).map(quote).join(', ')}]`,
    }
  })
  const findsOwn = has('get') || has('update') || has('delete')
  const keys = [entity.owner, ...(entity.tenant ? [entity.tenant] : [])]
  const checked = [...references.map(({ target }) => target), ...compounds.flatMap(({ target }) => (target ? [target] : []))]
  const usesToolError = findsOwn || checked.length > 0 || keys.some((key) => key.type !== 'String') || (entity.tenant?.isRequired ?? false)
  const runtimeNames = [...(usesToolError ? ['ToolError'] : []), ...(compoundCode.wholeKey ? ['wholeKey'] : []), 'type EntityTool', 'type ToolContext']
  const hooks = hooksOf(entity)

  const id = entity.id
  const idKey = (value: string) => (value === id.name ? id.name : `${id.name}: ${value}`)
  const compound = entity.compoundKey
  const keyFields = entity.key.map((field) => field.name)
  // A compound id: findOwn takes the key fields as one object, and writes address the row by all its id fields.
  const keyWhere = (source: string) =>
    compound ? `{ ${compound.name}: { ${compound.fields.map((field) => `${field}: ${source}.${field}`).join(', ')} } }` : `{ ${id.name}: ${source}.${id.name} }`
  const keyType = `{ ${entity.key.map((field) => `${field.name}: ${field.type === 'Int' ? 'number' : 'string'}`).join('; ')} }`
  const listFilters = filterable(entity)
  const converted = conversions(updatable(entity), 'changes', () => false)
  const writes = hooks.length > 0
  // The owner is the row's id (the caller's own row): the id and the owner both constrain it.
  const ownWhere = (idEntry: string, indent: string, column: number, suffix: number) =>
    entity.owner.isId ? `{ AND: [{ ${idEntry} }, ownership(context)] }` : printObject([idEntry, '...ownership(context)'], indent, column, suffix)
  const view = {
    imports: [
      `import { ${runtimeNames.join(', ')} } from '${imports.runtime}'`,
      `import type { Db } from '${imports.db}'`,
      ...(hooks.length > 0 ? [`import { ${[...hooks].sort().join(', ')} } from '${imports.hooks}'`] : []),
      ...(writes ? [`import { databaseRefusal, type RefusalContext } from '${imports.refusals}'`] : []),
    ],
    refusals: writes && refusalContext(entity, owned),
    tools,
    types,
    decimal: needsDecimal(entity.columns),
    jsonInput: needsJsonInput(entity.writable),
    // Writable fields are visible ones, so `in` implies `out`.
    bytes: { out: hasBytes(entity.fields), in: hasBytes(entity.writable) },
    entity: entity.name,
    namespace: entity.namespace ?? false,
    delegate: entity.delegate,
    singular: names.singular,
    article: /^[aeiou]/.test(names.singular) ? 'An' : 'A',
    rowName: names.row,
    presentName: names.present,
    toolsFunction: names.toolsFunction,
    columns: entity.columns.map((field) => ({ name: field.name, type: rowType(field) })),
    presented: entity.fields.map((field) => ({ name: field.name, expression: presentExpression(field) })),
    hiddenFields: entity.fields.length < entity.columns.length,
    ownership: withReferencedHelpers(ownership(entity), checked),
    references: [...referenceHelpers(references), ...compoundHelpers(compounds)],
    findOwn: findsOwn && {
      param: compound ? `key: ${keyType}` : `id: ${id.type === 'Int' ? 'number' : 'string'}`,
      where: compound
        ? printObject(
            [...entity.key.map((field) => `${field.name}: ${inputExpression(field, `key.${field.name}`, true) ?? `key.${field.name}`}`), '...ownership(context)'],
            '  ',
            `  const row = await db.${entity.delegate}.findFirst({ where: `.length,
            ' })'.length,
          )
        : ownWhere(idKey(inputExpression(id, 'id', true) ?? 'id'), '  ', `  const row = await db.${entity.delegate}.findFirst({ where: `.length, ' })'.length),
      notFound: notFoundText(entity, (field) => (compound ? `key.${field}` : 'id')),
    },
    list: has('list') && {
      ...names.operations.list,
      arguments: `page = 1, limit = ${PAGE_SIZE}${listFilters.length > 0 ? ', sort' : ''}`,
      orderBy: listFilters.length > 0 ? 'orderBy(sort)' : compound ? `[${keyFields.map((field) => `{ ${field}: 'asc' }`).join(', ')}]` : `{ ${id.name}: 'asc' }`,
      where: printObject(['...filters', ...conversions(listFilters, 'filters', () => false), '...ownership(context)'], '  ', '  const where = '.length),
      // Without a field to sort by, rows come in id order and there is no sort argument.
      sortFields:
        listFilters.length > 0 &&
        printUnionAlias(
          'SortField',
          listFilters.map((field) => quote(field.name)),
        ),
      idName: keyNames(entity),
      tiebreak: compound ? `[${keyFields.map((field) => `{ ${field}: 'asc' as const }`).join(', ')}]` : `{ ${id.name}: 'asc' as const }`,
      compound: compound !== undefined,
    },
    get: has('get') && { ...names.operations.get, key: compound ? 'args' : `args.${id.name}` },
    create: has('create') && {
      ...names.operations.create,
      checks: [...referenceChecks(references, 'args'), ...compoundCode.create],
      data: printObject(['...args', ...conversions(entity.writable, 'args', isRequiredOnCreate), '...ownership(context)'], '  ', '  const data = '.length),
    },
    update: has('update') && {
      ...names.operations.update,
      // A key field addresses the row, so it is no change to check.
      checks: [
        ...referenceChecks(
          references.filter(({ field }) => !field.isId),
          'changes',
        ),
        ...compoundCode.update,
      ],
      // False when Prisma takes the changes as they are.
      data: converted.length > 0 && printObject(['...changes', ...converted], '  ', '  const data = '.length),
      keyNames: keyFields.map((field) => (LOCALS.has(field) ? `${field}: ${field}Key` : field)).join(', '),
      key: compound ? `{ ${keyFields.map((field) => (LOCALS.has(field) ? `${field}: ${field}Key` : field)).join(', ')} }` : id.name,
      keyText: keyNames(entity),
      where: keyWhere('current'),
    },
    delete: has('delete') && { ...names.operations.delete, key: compound ? 'args' : `args.${id.name}`, where: keyWhere('current') },
  }
  return render('entity.gen.ts', view)
}

/**
 * The not-found message of one row, each key field's value given by `value`: `invoice 7 not
 * found`, or for a compound id `project member (projectId p1, slot 2) not found`.
 */
export function notFoundMessage(entity: ResolvedEntity, value: (field: string) => string): string {
  const { singular } = entityNames(entity)
  if (!entity.compoundKey) return `${singular} ${value(entity.id.name)} not found`
  return `${singular} (${entity.key.map((field) => `${field.name} ${value(field.name)}`).join(', ')}) not found`
}

/** {@link notFoundMessage} as a template literal of the expressions `value` gives: `` `invoice ${id} not found` ``. */
export const notFoundText = (entity: ResolvedEntity, value: (field: string) => string): string => `\`${notFoundMessage(entity, (field) => `\${${value(field)}}`)}\``

/** How messages name a row of `model`: as its entity does (`target`), else by the model's words. */
const rowsNamed = (model: string, target: ResolvedEntity | undefined) => (target ? entityNames(target).singular : words(model).join(' '))

/** What `databaseRefusal` needs to name the fields of this entity's constraints. */
function refusalContext(entity: ResolvedEntity, owned: ReadonlyMap<string, ResolvedEntity>): string {
  const fields = Object.fromEntries(entity.columns.map((field) => [field.column ?? field.name, field.name]))
  const names = (model: string) => rowsNamed(model, owned.get(model))
  // A key of one column goes by its field, one of several by its relation.
  const references = [
    ...entity.writable.flatMap((field) => (field.references === undefined ? [] : [{ name: field.name, fields: [field.name], names: names(field.references) }])),
    ...entity.compoundReferences.map((key) => ({ name: key.relation, fields: key.fields, names: names(key.references) })),
  ]
  const keys = [entity.owner.name, ...(entity.tenant ? [entity.tenant.name] : [])]
  return printLiteral({ singular: entityNames(entity).singular, fields, indexes: constraintNames(entity), keys, references }, '', 'const refusals: RefusalContext = '.length)
}

/**
 * The entity's unique and foreign key constraints by the names Prisma Migrate gives them
 * (`<table>_<columns>_key`, `<table>_<columns>_fkey`): a refusal naming one names its fields even
 * when the columns are mapped (`profiles_user_id_key` is `userId`, not `id`).
 */
function constraintNames(entity: ResolvedEntity): Record<string, string[]> {
  const byName = new Map(entity.columns.map((field) => [field.name, field]))
  const name = (fields: string[], suffix: string) => `${entity.table}_${fields.map((field) => byName.get(field)?.column ?? field).join('_')}_${suffix}`
  const sets = [...entity.columns.filter((field) => field.isUnique).map((field) => [field.name]), ...entity.uniqueSets]
  const foreign = [...entity.columns.filter((field) => field.references !== undefined).map((field) => [field.name]), ...entity.compoundReferences.map((key) => key.fields)]
  return Object.fromEntries([...sets.map((set) => [name(set, 'key'), set] as const), ...foreign.map((set) => [name(set, 'fkey'), set] as const)])
}

// `key: value,` with a long string value on a line of its own, as prettier does.
function longProperty(key: string, value: string, indent: string): string {
  const line = `${indent}${key}: ${value},`
  return line.length <= 100 ? line.trimStart() : `${key}:\n${indent}  ${value},`
}

/** `key: conversion` entries for the fields whose JSON value Prisma does not take as it is. */
function conversions(fields: ResolvedField[], source: string, present: (field: ResolvedField) => boolean): string[] {
  return fields.flatMap((field) => {
    const expression = inputExpression(field, `${source}.${field.name}`, present(field))
    return expression === undefined ? [] : [`${field.name}: ${expression}`]
  })
}

/** The owner (and tenant) columns, from the principal: the body of `ownership(context)`. */
function ownership(entity: ResolvedEntity): { guard: string | false; tenant: boolean; entries: string; keys: string[]; intId: boolean; bigIntId: boolean } {
  const { owner, tenant } = entity
  const value = (field: ResolvedField, source: string, what: string) =>
    field.type === 'Int' ? `intId(${source}, '${what}')` : field.type === 'BigInt' ? `bigIntId(${source}, '${what}')` : source
  const entries = [`${owner.name}: ${value(owner, 'principal.owner', 'owner')}`]
  let guard: string | false = false
  if (tenant?.isRequired) {
    // A required tenant column has no "no tenant" value: a caller acting in none is refused.
    guard = `if (principal.tenant === undefined) throw new ToolError('${entity.name} belong to a tenant, and this caller acts in none')`
    entries.push(`${tenant.name}: ${value(tenant, 'principal.tenant', 'tenant')}`)
  } else if (tenant) {
    const converted = value(tenant, 'principal.tenant', 'tenant')
    entries.push(`${tenant.name}: ${converted === 'principal.tenant' ? 'principal.tenant ?? null' : `principal.tenant === undefined ? null : ${converted}`}`)
  }
  const keys = [owner, ...(tenant ? [tenant] : [])]
  return {
    guard,
    tenant: tenant !== undefined,
    entries: printObject(entries, '  ', '  return '.length),
    keys: entries,
    intId: keys.some((key) => key.type === 'Int'),
    bigIntId: keys.some((key) => key.type === 'BigInt'),
  }
}

/** The column a reference holds: the target's id, or the unique column its relation names. */
const referencedColumn = ({ field, target }: Reference) => field.referencedKey ?? { name: target.id.name, type: target.id.type }

const ownName = (target: ResolvedEntity) => `own${pascalCase(entityNames(target).singular.replace(/ /g, '-'))}`

/** `own<Model>`, or `own<Model>By<Column>` for a reference onto a unique column that is not the id. */
const helperName = (reference: Reference) => {
  const base = ownName(reference.target)
  return reference.field.referencedKey ? `${base}By${pascalCase(reference.field.referencedKey.name)}` : base
}

/** `own<Model>` for a key into the target's compound id, else `own<Model>By<Columns>` (a compound unique). */
const compoundHelperName = ({ key, target }: Required<CompoundReference>) => {
  const base = ownName(target)
  const intoId = target.compoundKey !== undefined && key.to.length === target.compoundKey.fields.length && key.to.every((column) => target.compoundKey!.fields.includes(column))
  return intoId ? base : `${base}By${key.to.map(pascalCase).join('')}`
}

/**
 * `own<Model>`'s parts: it finds `term` (the key's own condition; `entries` as a `where`'s) among
 * the caller's rows.
 */
function ownHelper(target: ResolvedEntity, name: string, key: { param: string; term: string; entries: string[]; select: string; notFound: string }) {
  const owner = ownership(target)
  // A target whose owner is its id: the caller's own row, by both.
  const where = target.owner.isId
    ? `{ AND: [${key.term}, ${printObject(owner.keys, '    ', 0)}] }`
    : printObject([...key.entries, ...owner.keys], '    ', '    where: '.length, ','.length)
  return { name, singular: entityNames(target).singular, delegate: target.delegate, param: key.param, guard: owner.guard, where, select: key.select, notFound: key.notFound }
}

/** One `own<Model>(db, id, context)` per referenced entity and column: finds the row among the caller's. */
function referenceHelpers(references: Reference[]) {
  const helpers = [...new Map(references.map((reference) => [helperName(reference), reference])).values()]
  return helpers.map((reference) => {
    const column = referencedColumn(reference)
    const entry = column.name === 'id' ? 'id' : `${column.name}: id`
    return ownHelper(reference.target, helperName(reference), {
      param: `id: ${column.type === 'Int' ? 'number' : 'string'}`,
      term: `{ ${entry} }`,
      entries: [entry],
      select: column.name,
      notFound: `\`${entityNames(reference.target).singular} \${id} not found\``,
    })
  })
}

/** One `own<Model>(db, key, context)` per entity a key of several columns names, and the columns it holds. */
function compoundHelpers(compounds: CompoundReference[]) {
  const checked = compounds.filter((reference): reference is Required<CompoundReference> => reference.target !== undefined)
  const helpers = [...new Map(checked.map((reference) => [compoundHelperName(reference), reference])).values()]
  return helpers.map((reference) => {
    const { key, target } = reference
    const columns = key.to.map((column) => target.columns.find((field) => field.name === column)!)
    return ownHelper(target, compoundHelperName(reference), {
      param: `key: { ${columns.map((field) => `${field.name}: ${keyValueType(field)}`).join('; ')} }`,
      term: 'key',
      entries: ['...key'],
      select: key.to[0]!,
      notFound: `\`${entityNames(target).singular} (${key.to.map((column) => `${column} \${key.${column}}`).join(', ')}) not found\``,
    })
  })
}

/** The type of one value of a key as a `where` takes it. */
function keyValueType(field: ResolvedField): string {
  if (field.type === 'DateTime') return 'Date | string'
  if (field.type === 'Decimal') return 'string'
  return rowType({ ...field, isRequired: true, isList: false })
}

/** The statements that check each reference a write carries. */
function referenceChecks(references: Reference[], source: string): string[] {
  return references.map((reference) => {
    const { field } = reference
    const value = `${source}.${field.name}`
    const call = `await ${helperName(reference)}(db, ${value}, context)`
    return field.isRequired && source === 'args' ? call : `if (${value} !== undefined && ${value} !== null) {\n    ${call}\n  }`
  })
}

/**
 * The statements that check each key of several columns a create and an update carry: sent whole
 * or not at all (`wholeKey`), and into a declared entity, naming one of the caller's rows. A
 * field the write does not send comes from where the row takes it: the owner and tenant from the
 * caller, and on update a field of the row's own id from the row.
 */
function compoundChecks(entity: ResolvedEntity, compounds: CompoundReference[]): { create: string[]; update: string[]; wholeKey: boolean } {
  const keys = [entity.owner.name, entity.tenant?.name]
  const byName = new Map(entity.columns.map((field) => [field.name, field]))
  const updatable = new Set(entity.writable.filter((field) => !field.isId).map((field) => field.name))
  let usesWholeKey = false
  const checks = (source: string, sends: (field: string) => boolean, kept: (field: string) => string) =>
    compounds.flatMap(({ key, target }) => {
      const sent = key.fields.filter(sends)
      // A required key's fields are required arguments of create: its schema sees them all sent.
      const complete = source === 'args' && key.isRequired
      // Nothing to check: no field of it sent, or into a model that is no entity, nothing that can be sent in part.
      if (sent.length === 0 || (!target && (complete || sent.length === 1))) return []
      const names = rowsNamed(key.references, target)
      const whole = `wholeKey(${source}, [${sent.map(quote).join(', ')}], ${quote(names)})`
      usesWholeKey ||= !complete
      if (!target) return [`// ${listOf(sent)} name one ${names} together: all of them, or none.\n  ${whole}`]
      const variable = complete ? source : `${key.relation}Key`
      const value = (field: string) => (sent.includes(field) ? (inputExpression(byName.get(field)!, `${variable}.${field}`, true) ?? `${variable}.${field}`) : kept(field))
      const entries = key.fields.map((field, index) => `${key.to[index]}: ${value(field)}`)
      const call = (indent: string) => {
        const callee = `await ${compoundHelperName({ key, target })}(`
        const line = `${callee}db, ${printObject(entries, indent, 0)}, context)`
        if (indent.length + line.length <= 100) return line
        // As prettier breaks it: one argument a line.
        const inner = `${indent}  `
        return `${callee}\n${inner}db,\n${inner}${printObject(entries, inner, inner.length, 1)},\n${inner}context,\n${indent})`
      }
      return complete ? [call('  ')] : [`const ${variable} = ${whole}`, `if (${variable}) {\n    ${call('    ')}\n  }`]
    })
  const create = checks(
    'args',
    (field) => !keys.includes(field),
    (field) => `ownership(context).${field}`,
  )
  const update = checks(
    'changes',
    (field) => updatable.has(field),
    (field) => `current.${field}`,
  )
  return { create, update, wholeKey: usesWholeKey }
}

/** A referenced entity's owner may need the id converters too. */
function withReferencedHelpers(own: ReturnType<typeof ownership>, targets: ResolvedEntity[]) {
  const theirs = targets.map((target) => ownership(target))
  return {
    ...own,
    intId: own.intId || theirs.some((other) => other.intId),
    bigIntId: own.bigIntId || theirs.some((other) => other.bigIntId),
  }
}
