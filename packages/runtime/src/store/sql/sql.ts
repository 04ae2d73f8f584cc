/**
 * The store's statements, written as SQL and sent through the app's Prisma client as raw queries.
 * Prisma compiles every model query with its wasm query compiler, which cost ~0.3–0.7 ms of CPU per
 * statement here, several times the statement itself; a raw query skips that step and still runs
 * on the app's client, its adapter and its transactions. Prisma binds the values with the
 * provider's placeholders (`?` or `$1`), and the statements below keep to the SQL SQLite and
 * PostgreSQL share: double-quoted identifiers, RETURNING, ON CONFLICT, LIMIT … OFFSET.
 *
 * Tables are named without a schema, so on PostgreSQL they resolve through the connection's
 * search_path. PrismaPg's `schema` option qualifies only model queries: an app whose tables live
 * outside `public` also names the schema in the URL, `?options=-c%20search_path%3D<schema>`.
 *
 * On a MySQL or MariaDB client (@prisma/adapter-mariadb) each statement goes rewritten to MySQL's
 * syntax (mysql/dialect.ts).
 * @module
 */
import sql, { type Sql, join } from 'sql-template-tag'
import type { RawClient } from './client.js'
import { toMysql } from './mysql/dialect.js'

export { sql, join, type Sql }

/** Statement texts by shape (see {@link shaped}): with `$n` placeholders (PostgreSQL) and with `?` (SQLite). */
const shapedTexts = new Map<string, { text: string; sql: string }>()

/**
 * `statement` with the texts of the first statement built under the same `shape`, a key naming
 * everything its text depends on (its values may differ). A hot statement's text, a join of its
 * fragments that the executor then hashes to find its prepared statement, is built once, not per call.
 */
export function shaped(shape: string, statement: Sql): Sql {
  let texts = shapedTexts.get(shape)
  if (texts === undefined) shapedTexts.set(shape, (texts = { text: statement.text, sql: statement.sql }))
  return Object.defineProperties(statement, { text: { value: texts.text }, sql: { value: texts.sql } })
}

/** Whether `db` (a client or one of its transactions) is on MySQL or MariaDB. */
export const isMysql = (db: RawClient): boolean => (db as { _activeProvider?: string })._activeProvider === 'mysql'

/** `statement` as the tag-function call Prisma's `$queryRaw` and `$executeRaw` expect, in `db`'s SQL. */
function tagged(db: RawClient, shared: Sql): [TemplateStringsArray, ...unknown[]] {
  const statement = isMysql(db) ? toMysql(shared) : shared
  return [Object.assign([...statement.strings], { raw: statement.strings }), ...statement.values]
}

/** Rows of a SELECT or of a statement with RETURNING, typed as the caller knows them. */
export const query = <Row>(db: RawClient, statement: Sql): PromiseLike<Row[]> => db.$queryRaw<Row[]>(...tagged(db, statement))

/** A statement without rows; resolves to the number of rows it changed. */
export const execute = (db: RawClient, statement: Sql): PromiseLike<number> => db.$executeRaw(...tagged(db, statement))
