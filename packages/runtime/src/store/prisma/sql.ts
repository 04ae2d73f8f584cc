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
 * @module
 */
import sql, { Sql, join } from 'sql-template-tag'
import type { RawClient } from './client.js'

export { sql, join, type Sql }

/** `statement` as the tag-function call Prisma's `$queryRaw` and `$executeRaw` expect. */
const tagged = (statement: Sql): [TemplateStringsArray, ...unknown[]] => [
  Object.assign([...statement.strings], { raw: statement.strings }),
  ...statement.values,
]

/** Rows of a SELECT or of a statement with RETURNING, typed as the caller knows them. */
export const query = <Row>(db: RawClient, statement: Sql): PromiseLike<Row[]> => db.$queryRaw<Row[]>(...tagged(statement))

/** A statement without rows; resolves to the number of rows it changed. */
export const execute = (db: RawClient, statement: Sql): PromiseLike<number> => db.$executeRaw(...tagged(statement))
