/**
 * The MySQL/MariaDB tables a Prisma schema asks for, in the shape the live database is read into
 * ({@link DbSchema}), so one differ compares either with either. Names follow Prisma's own MySQL
 * conventions (`User_email_key`, `Post_authorId_idx`, `Post_authorId_fkey`, types such as
 * `VARCHAR(191)` and `DATETIME(3)`), so migrations read like the ones `prisma migrate` writes.
 * @module
 */
import type { Datamodel, DmmfField, DmmfModel } from '../read/dmmf.js'

export interface DbColumn {
  name: string
  /** Lowercase, as information_schema.COLUMNS.COLUMN_TYPE reports it: `varchar(191)`, `int`, `enum('A','B')`. */
  type: string
  nullable: boolean
  /** The default as {@link canonicalDefault} spells it; undefined for none. */
  default?: string
  autoIncrement: boolean
}

export interface DbIndex {
  name: string
  kind: 'unique' | 'normal' | 'fulltext'
  columns: { name: string; length?: number }[]
}

export interface DbForeignKey {
  name: string
  columns: string[]
  referencedTable: string
  referencedColumns: string[]
  onDelete: string
  onUpdate: string
}

export interface DbTable {
  name: string
  columns: DbColumn[]
  primaryKey: string[]
  indexes: DbIndex[]
  foreignKeys: DbForeignKey[]
}

export interface DbSchema {
  tables: DbTable[]
}

/** MySQL's identifier limit; Prisma cuts generated names to it the same way. */
const MAX_NAME = 64

/** Prisma's default constraint name: `<table>_<columns>_<suffix>`, cut to 64 characters before the suffix. */
function constraintName(table: string, columns: string[], suffix: string): string {
  return `${[table, ...columns].join('_').slice(0, MAX_NAME - suffix.length - 1)}_${suffix}`
}

const SCALAR_TYPES: Record<string, string> = {
  String: 'varchar(191)',
  Boolean: 'tinyint(1)',
  Int: 'int',
  BigInt: 'bigint',
  Float: 'double',
  Decimal: 'decimal(65,30)',
  DateTime: 'datetime(3)',
  Json: 'json',
  Bytes: 'longblob',
}

/** `@db.<Name>(args)` as a column type; the unsigned integers are `UnsignedInt` and friends. */
function nativeColumnType([name, args]: [string, string[]]): string {
  const unsigned = /^Unsigned(\w+)$/.exec(name)
  const base = (unsigned?.[1] ?? name).toLowerCase()
  const sqlName = base === 'int' ? 'int' : base === 'boolean' ? 'tinyint' : base
  const withArgs = args.length > 0 ? `${sqlName}(${args.join(',')})` : sqlName
  return unsigned ? `${withArgs} unsigned` : withArgs
}

function enumType(values: string[]): string {
  return `enum(${values.map(quoteString).join(',')})`
}

export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
}

/**
 * A default in one spelling for both sides of a diff: literals as their text (numbers as numbers),
 * functions as `fn:<call>` lowercased, expressions from `dbgenerated()` as `expr:<text>`.
 */
function fieldDefault(field: DmmfField, type: string): string | undefined {
  const value = field.default
  if (value === undefined || value === null) return undefined
  if (typeof value === 'object' && !Array.isArray(value)) {
    const call = value as { name: string; args: unknown[] }
    if (call.name === 'now') return currentTimestamp(/\((\d+)\)/.exec(type)?.[1])
    if (call.name === 'dbgenerated' && typeof call.args[0] === 'string') return `expr:${call.args[0]}`
    // autoincrement() is the column's AUTO_INCREMENT; uuid(), cuid(), nanoid() are filled in by the client.
    return undefined
  }
  if (typeof value === 'boolean') return value ? '1' : '0'
  if (Array.isArray(value)) return undefined
  return String(value)
}

/**
 * A column type as both servers can agree on it: integer display widths dropped (MariaDB and
 * MySQL 5 report `int(11)`, MySQL 8 `int`) except `tinyint(1)`, Prisma's Boolean; zero
 * fractional-second precision dropped; YEAR without its width.
 */
export function normalizeType(type: string): string {
  // ENUM and SET values keep their case; the rest of a type is case-insensitive.
  const lowered = /^(enum|set)\(/i.test(type) ? type.replace(/^\w+/, (name) => name.toLowerCase()) : type.toLowerCase()
  return lowered
    .replace(/^(bigint|int|mediumint|smallint|tinyint)\((\d+)\)/, (whole, name: string, width: string) => (name === 'tinyint' && width === '1' ? whole : name))
    .replace(/^(datetime|timestamp|time)\(0\)/, '$1')
    .replace(/^year\(4\)/, 'year')
    .replace(/\s+/g, ' ')
    .trim()
}

/** `CURRENT_TIMESTAMP` at a precision, as both sides of a diff spell it. */
export function currentTimestamp(precision: string | undefined): string {
  return precision && precision !== '0' ? `fn:current_timestamp(${precision})` : 'fn:current_timestamp'
}

/** The tables `datamodel` (a MySQL schema's) maps to. */
export function targetSchema(datamodel: Datamodel): DbSchema {
  const models = new Map(datamodel.models.map((model) => [model.name, model]))
  // Each enum's values as stored: a value's @map name, else its own.
  const enums = new Map(datamodel.enums.map((item) => [item.name, new Map(item.values.map((value) => [value.name, (value as { dbName?: string | null }).dbName ?? value.name]))]))
  const tableName = (model: DmmfModel) => model.dbName ?? model.name
  const columnName = (model: DmmfModel, field: string) => {
    const found = model.fields.find((candidate) => candidate.name === field)
    return found?.dbName ?? field
  }
  const tables = datamodel.models.map((model): DbTable => {
    const table = tableName(model)
    const columns = model.fields
      .filter((field) => field.kind !== 'object')
      .map((field): DbColumn => {
        const stored = enums.get(field.type)
        // `Unsupported("point")` is a column of the type it names.
        const unsupported = /^Unsupported\("(.*)"\)$/.exec(field.type)?.[1]
        const type = normalizeType(
          unsupported ?? (stored ? enumType([...stored.values()]) : field.nativeType ? nativeColumnType(field.nativeType) : (SCALAR_TYPES[field.type] ?? 'longtext')),
        )
        const defaultValue = stored && typeof field.default === 'string' ? (stored.get(field.default) ?? field.default) : fieldDefault(field, type)
        const autoIncrement = (field.default as { name?: string } | undefined)?.name === 'autoincrement'
        return { name: field.dbName ?? field.name, type, nullable: !field.isRequired, ...(defaultValue !== undefined && { default: defaultValue }), autoIncrement }
      })
    const indexes: DbIndex[] = []
    let primaryKey: string[] = []
    for (const index of datamodel.indexes ?? []) {
      if (index.model !== model.name) continue
      const indexColumns = index.fields.map((field) => ({ name: columnName(model, field.name), ...(field.length !== undefined && { length: field.length }) }))
      if (index.type === 'id') {
        primaryKey = indexColumns.map((column) => column.name)
        continue
      }
      const suffix = index.type === 'unique' ? 'key' : 'idx'
      const dbName = (index as { dbName?: string | null }).dbName
      indexes.push({
        name:
          dbName ??
          constraintName(
            table,
            indexColumns.map((column) => column.name),
            suffix,
          ),
        kind: index.type,
        columns: indexColumns,
      })
    }
    const foreignKeys = model.fields
      .filter((field) => field.kind === 'object' && (field.relationFromFields?.length ?? 0) > 0)
      .map((field): DbForeignKey => {
        const target = models.get(field.type)!
        const from = field.relationFromFields!.map((name) => columnName(model, name))
        const required = from.every((name) => columns.find((column) => column.name === name)?.nullable === false)
        const actions = field as { relationOnDelete?: string; relationOnUpdate?: string }
        return {
          name: constraintName(table, from, 'fkey'),
          columns: from,
          referencedTable: tableName(target),
          referencedColumns: field.relationToFields!.map((name) => columnName(target, name)),
          // Prisma's defaults: a required relation restricts deletes, an optional one clears the key.
          onDelete: referentialAction(actions.relationOnDelete ?? (required ? 'Restrict' : 'SetNull')),
          onUpdate: referentialAction(actions.relationOnUpdate ?? 'Cascade'),
        }
      })
    // InnoDB needs an index leading with a foreign key's columns; Prisma adds one, as this does.
    for (const key of foreignKeys) {
      const covered = [primaryKey, ...indexes.map((index) => index.columns.map((column) => column.name))].some((columns) =>
        key.columns.every((column, position) => columns[position] === column),
      )
      if (!covered) indexes.push({ name: constraintName(table, key.columns, 'idx'), kind: 'normal', columns: key.columns.map((name) => ({ name })) })
    }
    return { name: table, columns, primaryKey, indexes, foreignKeys }
  })
  return { tables }
}

/** Prisma's `SetNull` as MySQL's `SET NULL`, and so on. */
function referentialAction(action: string): string {
  return action === 'NoAction' ? 'NO ACTION' : action.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase()
}
