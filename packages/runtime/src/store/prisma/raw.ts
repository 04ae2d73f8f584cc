/**
 * The store's statements sent through the app's Prisma client as raw queries. Prisma compiles
 * every model query with its wasm query compiler, which cost ~0.3–0.7 ms of CPU per statement
 * here, several times the statement itself; a raw query skips that step and still runs on the
 * app's client, its adapter and its transactions. Prisma binds the values with the provider's
 * placeholders (`?` or `$1`); the client's {@link Dialect} renders each statement for its database.
 *
 * PrismaPg's `schema` option qualifies only model queries: an app whose tables live outside
 * `public` also names the schema in the URL, `?options=-c%20search_path%3D<schema>`.
 * @module
 */
import type { RawClient } from './client.js'
import { dialectNamed, type Dialect } from '../sql/dialect.js'
import type { Sql } from '../sql/sql.js'

/** The dialect of an app's Prisma client, by its provider (a transaction's is its client's). */
export const dialectOf = (db: RawClient): Dialect => dialectNamed((db as { _activeProvider?: string })._activeProvider)

/** `statement` as the tag-function call Prisma's `$queryRaw` and `$executeRaw` expect, in `dialect`'s SQL. */
function tagged(dialect: Dialect, shared: Sql): [TemplateStringsArray, ...unknown[]] {
  const statement = dialect.render(shared)
  return [Object.assign([...statement.strings], { raw: statement.strings }), ...statement.values]
}

/** Rows of a SELECT or of a statement with RETURNING, typed as the caller knows them. */
export const query = <Row>(db: RawClient, statement: Sql, dialect = dialectOf(db)): PromiseLike<Row[]> => db.$queryRaw<Row[]>(...tagged(dialect, statement))

/** A statement without rows; resolves to the number of rows it changed. */
export const execute = (db: RawClient, statement: Sql, dialect = dialectOf(db)): PromiseLike<number> => db.$executeRaw(...tagged(dialect, statement))
