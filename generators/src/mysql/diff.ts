/**
 * The SQL that turns one MySQL/MariaDB schema into another, in the order the server accepts it:
 * foreign keys dropped, then indexes, tables, new tables, column changes, new indexes, and foreign
 * keys added last. Steps that can lose data come with a warning the caller shows before running
 * them (`--accept-data-loss`).
 * @module
 */
import { type DbColumn, type DbForeignKey, type DbIndex, type DbSchema, type DbTable, quoteString } from './schema.js'

/** A step that can lose data; `column` unset means the whole table. Worth stopping for only when rows exist. */
export interface DataLossWarning {
  table: string
  column?: string
  message: string
}

export interface MigrationDiff {
  /** Statements, each with the `-- Kind` comment Prisma's migrations use above it. */
  statements: string[]
  warnings: DataLossWarning[]
}

export function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``
}

const names = (columns: readonly string[]) => columns.map(quoteName).join(', ')

function numeric(type: string): boolean {
  return /^(tinyint|smallint|mediumint|int|bigint|decimal|float|double|bit|year)\b/.test(type)
}

function renderDefault(column: DbColumn): string {
  const value = column.default
  if (value === undefined) return ''
  if (value.startsWith('fn:')) return ` DEFAULT ${value.slice(3).toUpperCase()}`
  if (value.startsWith('expr:')) return ` DEFAULT (${value.slice(5)})`
  return ` DEFAULT ${numeric(column.type) && /^-?[\d.]+$/.test(value) ? value : quoteString(value)}`
}

/** Prisma's spellings where MySQL has two: BOOLEAN for TINYINT(1), INTEGER for INT. */
const PRISMA_SPELLING: Record<string, string> = { 'tinyint(1)': 'BOOLEAN', int: 'INTEGER' }

function renderColumn(column: DbColumn): string {
  const type = PRISMA_SPELLING[column.type] ?? (/^(enum|set)\(/.test(column.type) ? column.type.replace(/^\w+/, (name) => name.toUpperCase()) : column.type.toUpperCase())
  return `${quoteName(column.name)} ${type}${column.nullable ? ' NULL' : ' NOT NULL'}${renderDefault(column)}${column.autoIncrement ? ' AUTO_INCREMENT' : ''}`
}

function indexColumns(index: DbIndex): string {
  return index.columns.map((column) => `${quoteName(column.name)}${column.length !== undefined ? `(${column.length})` : ''}`).join(', ')
}

const INDEX_KEYWORD: Record<DbIndex['kind'], string> = { unique: 'UNIQUE INDEX', normal: 'INDEX', fulltext: 'FULLTEXT INDEX' }

function renderForeignKey(table: string, key: DbForeignKey): string {
  return `-- AddForeignKey\nALTER TABLE ${quoteName(table)} ADD CONSTRAINT ${quoteName(key.name)} FOREIGN KEY (${names(key.columns)}) REFERENCES ${quoteName(key.referencedTable)}(${names(key.referencedColumns)}) ON DELETE ${key.onDelete} ON UPDATE ${key.onUpdate};`
}

function createTable(table: DbTable): string {
  const lines = [
    ...table.columns.map(renderColumn),
    ...table.indexes.map((index) => `${INDEX_KEYWORD[index.kind]} ${quoteName(index.name)}(${indexColumns(index)})`),
    ...(table.primaryKey.length > 0 ? [`PRIMARY KEY (${names(table.primaryKey)})`] : []),
  ]
  return `-- CreateTable\nCREATE TABLE ${quoteName(table.name)} (\n    ${lines.join(',\n    ')}\n) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`
}

function sameNumberOrText(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true
  if (a === undefined || b === undefined) return false
  if (a.startsWith('expr:') && b.startsWith('expr:')) return a.replace(/[\s()`]/g, '').toLowerCase() === b.replace(/[\s()`]/g, '').toLowerCase()
  const [x, y] = [Number(a), Number(b)]
  return a.trim() !== '' && b.trim() !== '' && Number.isFinite(x) && Number.isFinite(y) && x === y
}

/** JSON is LONGTEXT with a check on MariaDB: information_schema says `longtext` for it. */
function sameType(a: string, b: string): boolean {
  const json = (type: string) => (type === 'json' ? 'longtext' : type)
  return json(a) === json(b)
}

function sameColumn(a: DbColumn, b: DbColumn): boolean {
  return sameType(a.type, b.type) && a.nullable === b.nullable && a.autoIncrement === b.autoIncrement && sameNumberOrText(a.default, b.default)
}

function sameIndex(a: DbIndex, b: DbIndex): boolean {
  return a.kind === b.kind && a.columns.length === b.columns.length && a.columns.every((column, i) => column.name === b.columns[i]!.name && column.length === b.columns[i]!.length)
}

function sameForeignKey(a: DbForeignKey, b: DbForeignKey): boolean {
  return (
    a.referencedTable === b.referencedTable &&
    a.columns.join() === b.columns.join() &&
    a.referencedColumns.join() === b.referencedColumns.join() &&
    a.onDelete === b.onDelete &&
    a.onUpdate === b.onUpdate
  )
}

const byName = <T extends { name: string }>(items: readonly T[]) => new Map(items.map((item) => [item.name, item]))

/** The statements that make a database shaped like `from` shaped like `to`; empty when they match. */
export function diffSchemas(from: DbSchema, to: DbSchema): MigrationDiff {
  const before = byName(from.tables)
  const after = byName(to.tables)
  const dropKeys: string[] = []
  const dropIndexes: string[] = []
  const dropTables: string[] = []
  const createTables: string[] = []
  const alterTables: string[] = []
  const createIndexes: string[] = []
  const addKeys: string[] = []
  const warnings: DataLossWarning[] = []

  for (const old of from.tables) {
    const next = after.get(old.name)
    const nextKeys = byName(next?.foreignKeys ?? [])
    for (const key of old.foreignKeys) {
      const kept = nextKeys.get(key.name)
      if (!kept || !sameForeignKey(key, kept)) dropKeys.push(`-- DropForeignKey\nALTER TABLE ${quoteName(old.name)} DROP FOREIGN KEY ${quoteName(key.name)};`)
    }
    if (!next) {
      dropTables.push(`-- DropTable\nDROP TABLE ${quoteName(old.name)};`)
      warnings.push({ table: old.name, message: `drops table \`${old.name}\` and every row in it` })
      continue
    }
    const nextIndexes = byName(next.indexes)
    for (const index of old.indexes) {
      const kept = nextIndexes.get(index.name)
      if (!kept || !sameIndex(index, kept)) dropIndexes.push(`-- DropIndex\nDROP INDEX ${quoteName(index.name)} ON ${quoteName(old.name)};`)
    }
  }

  for (const table of to.tables) {
    const old = before.get(table.name)
    if (!old) {
      createTables.push(createTable(table))
      addKeys.push(...table.foreignKeys.map((key) => renderForeignKey(table.name, key)))
      continue
    }
    const changes = alterColumns(old, table, warnings)
    if (changes.length > 0) alterTables.push(`-- AlterTable\nALTER TABLE ${quoteName(table.name)} ${changes.join(',\n    ')};`)
    const oldIndexes = byName(old.indexes)
    for (const index of table.indexes) {
      const existing = oldIndexes.get(index.name)
      if (!existing || !sameIndex(existing, index))
        createIndexes.push(`-- CreateIndex\nCREATE ${INDEX_KEYWORD[index.kind]} ${quoteName(index.name)} ON ${quoteName(table.name)}(${indexColumns(index)});`)
    }
    const oldKeys = byName(old.foreignKeys)
    for (const key of table.foreignKeys) {
      const existing = oldKeys.get(key.name)
      if (!existing || !sameForeignKey(existing, key)) addKeys.push(renderForeignKey(table.name, key))
    }
  }
  return { statements: [...dropKeys, ...dropIndexes, ...dropTables, ...createTables, ...alterTables, ...createIndexes, ...addKeys], warnings }
}

/** ADD/MODIFY/DROP COLUMN and primary key clauses for one ALTER TABLE, with their warnings. */
function alterColumns(old: DbTable, table: DbTable, warnings: DataLossWarning[]): string[] {
  const oldColumns = byName(old.columns)
  const newColumns = byName(table.columns)
  const clauses: string[] = []
  const primaryKeyChanged = old.primaryKey.join() !== table.primaryKey.join()
  if (primaryKeyChanged && old.primaryKey.length > 0) clauses.push('DROP PRIMARY KEY')
  for (const column of old.columns) {
    if (newColumns.has(column.name)) continue
    clauses.push(`DROP COLUMN ${quoteName(column.name)}`)
    warnings.push({ table: table.name, column: column.name, message: `drops column \`${table.name}\`.\`${column.name}\` and the values in it` })
  }
  for (const column of table.columns) {
    const existing = oldColumns.get(column.name)
    if (!existing) {
      clauses.push(`ADD COLUMN ${renderColumn(column)}`)
      if (!column.nullable && column.default === undefined && !column.autoIncrement) {
        warnings.push({
          table: table.name,
          message: `adds required column \`${table.name}\`.\`${column.name}\` without a default, which existing rows cannot get; give it a @default or make it optional`,
        })
      }
      continue
    }
    if (sameColumn(existing, column)) continue
    clauses.push(`MODIFY ${renderColumn(column)}`)
    if (!sameType(existing.type, column.type)) {
      warnings.push({
        table: table.name,
        column: column.name,
        message: `changes \`${table.name}\`.\`${column.name}\` from ${existing.type} to ${column.type}; values that do not fit are cut or stop the migration`,
      })
    } else if (existing.nullable && !column.nullable) {
      warnings.push({ table: table.name, column: column.name, message: `makes \`${table.name}\`.\`${column.name}\` required; rows holding NULL there stop the migration` })
    }
  }
  if (primaryKeyChanged && table.primaryKey.length > 0) clauses.push(`ADD PRIMARY KEY (${names(table.primaryKey)})`)
  return clauses
}
