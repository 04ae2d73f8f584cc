/**
 * What tells one SQL database from another in the store's statements. The statements
 * (statements.ts, artifact-files.ts) are written once, with identifiers double-quoted and every
 * value bound; where the databases' syntax differs they ask their {@link Dialect}: the quotes an
 * identifier is sent in, an insert that skips a taken key, an upsert, the table a table-less
 * SELECT names, whether an UPDATE can return its row (else the executor reads it back in the
 * same transaction, see statements.returningParts) and where the catalog lists columns.
 * An executor knows its database's dialect (Executor.dialect); a store on a new database brings
 * one of these and an executor.
 * @module
 */
import sql, { join, raw, Sql } from 'sql-template-tag'

/** Table → the columns the store's statements name (see schema-check.ts). */
export type RequiredSchema = Readonly<Record<string, readonly string[]>>

export interface Dialect {
  /** As Prisma names the provider: `postgresql`, `sqlite`, `mysql`. */
  readonly name: 'postgresql' | 'sqlite' | 'mysql'
  /** `statement` as this database reads it: each identifier, written double-quoted, in its quotes. Values stay bound. */
  render(statement: Sql): Sql
  /** An insert into `table`'s `columns` of `rows` (`VALUES …` or a `SELECT`) that skips a row whose key is taken. */
  insertIgnore(table: string, columns: readonly string[], rows: Sql): Sql
  /** The same insert replacing the row with the same `key` instead, setting `update` from the new row. */
  upsert(table: string, columns: readonly string[], rows: Sql, key: readonly string[], update: readonly string[]): Sql
  /** What a SELECT of values alone names as its table when it has a WHERE: nothing, or MySQL's DUAL. */
  readonly noTable: Sql
  /** Whether `UPDATE … RETURNING` is SQL here; without it the executor reads the row back (statements.returningParts). */
  readonly updateReturning: boolean
  /** One catalog query: the (table, column) pairs of `required`'s tables that the connection sees. */
  columns(required: RequiredSchema): Sql
}

const quoted = (names: readonly string[]): Sql => raw(names.map((name) => `"${name}"`).join(', '))

/** `INSERT INTO "table" ("a", "b")`, with `verb` for INSERT. */
const into = (verb: string, table: string, columns: readonly string[]): Sql => raw(`${verb} INTO "${table}" (${columns.map((name) => `"${name}"`).join(', ')})`)

const assignments = (columns: readonly string[], value: (column: string) => string): Sql => raw(columns.map((column) => `"${column}" = ${value(column)}`).join(', '))

const tableNames = (required: RequiredSchema): Sql => join(Object.keys(required))

/** PostgreSQL and SQLite share the statements' own syntax: `ON CONFLICT`, `RETURNING`, double quotes. */
const onConflict = {
  render: (statement: Sql): Sql => statement,
  insertIgnore: (table: string, columns: readonly string[], rows: Sql): Sql => sql`${into('INSERT', table, columns)} ${rows} ON CONFLICT DO NOTHING`,
  upsert: (table: string, columns: readonly string[], rows: Sql, key: readonly string[], update: readonly string[]): Sql =>
    sql`${into('INSERT', table, columns)} ${rows} ON CONFLICT (${quoted(key)}) DO UPDATE SET ${assignments(update, (column) => `excluded."${column}"`)}`,
  noTable: sql``,
  updateReturning: true,
} as const

export const POSTGRES: Dialect = {
  name: 'postgresql',
  ...onConflict,
  // The tables on the connection's search_path, as the statements name them unqualified.
  columns: (required) =>
    sql`SELECT table_name::text AS "table", column_name::text AS "column" FROM information_schema.columns
      WHERE table_schema = ANY (current_schemas(false)) AND table_name IN (${tableNames(required)})`,
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  ...onConflict,
  columns: (required) =>
    sql`SELECT m.name AS "table", c.name AS "column" FROM sqlite_master m JOIN pragma_table_info(m.name) c
      WHERE m.type = 'table' AND m.name IN (${tableNames(required)})`,
}

/** Rendered texts by original text: the statements have a few dozen shapes, each rendered once. */
const backticked = new Map<string, string[]>()

/** MySQL and MariaDB: backticks, `INSERT IGNORE`, `ON DUPLICATE KEY UPDATE`, `FROM DUAL`, no `UPDATE … RETURNING`. */
export const MYSQL: Dialect = {
  name: 'mysql',
  render(statement) {
    const key = statement.strings.join('\u0000')
    let strings = backticked.get(key)
    // Every value is bound, so each `"` in the text is an identifier's quote.
    if (strings === undefined) backticked.set(key, (strings = statement.strings.map((piece) => piece.replaceAll('"', '`'))))
    return new Sql(strings, statement.values)
  },
  insertIgnore: (table, columns, rows) => sql`${into('INSERT IGNORE', table, columns)} ${rows}`,
  // The key is the table's own (primary or unique) key: MySQL finds it without being told.
  upsert: (table, columns, rows, _key, update) => sql`${into('INSERT', table, columns)} ${rows} ON DUPLICATE KEY UPDATE ${assignments(update, (column) => `VALUES("${column}")`)}`,
  noTable: sql`FROM DUAL`,
  updateReturning: false,
  columns: (required) =>
    sql`SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
      WHERE table_schema = DATABASE() AND table_name IN (${tableNames(required)})`,
}

/** The dialect of a Prisma provider name (a client's `_activeProvider`). */
export function dialectNamed(provider: string | undefined): Dialect {
  if (provider === 'mysql') return MYSQL
  if (provider === 'sqlite') return SQLITE
  if (provider === 'postgresql' || provider === 'postgres') return POSTGRES
  throw new Error(`no SQL dialect for the Prisma provider ${JSON.stringify(provider)}: the task store runs on postgresql, sqlite or mysql`)
}
