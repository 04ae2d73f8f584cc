/**
 * How the store's statements are written: sql-template-tag's `sql` (every value bound, never
 * spliced), and {@link shaped} for the hot ones. Tables are named without a schema, so on
 * PostgreSQL they resolve through the connection's search_path.
 * @module
 */
import sql, { type Sql, join } from 'sql-template-tag'

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
