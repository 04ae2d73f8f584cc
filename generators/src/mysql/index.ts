/**
 * `@a2a-agent/generators/mysql`: MySQL/MariaDB migrations without Prisma's schema engine, whose
 * wasm build (the one that needs no native download) has no MySQL connector. The Prisma schema
 * gives the tables wanted, information_schema the tables there, and the differ the SQL between.
 * @module
 */
import { GeneratorError } from '../errors.js'
import { readPrismaSchema } from '../read/prisma-schema.js'
import { type DbSchema, targetSchema } from './schema.js'

export type { DataLossWarning, MigrationDiff } from './diff.js'
export { diffSchemas, quoteName } from './diff.js'
export type { Query } from './introspect.js'
export { MIGRATIONS_TABLE, RUNTIME_TABLES, introspect } from './introspect.js'
export type { DbColumn, DbForeignKey, DbIndex, DbSchema, DbTable } from './schema.js'
export { targetSchema } from './schema.js'

/** The tables the app's Prisma schema (file or folder, relative to `appRoot`) asks for; it must use the `mysql` provider. */
export async function readMysqlSchema(appRoot: string, path: string): Promise<DbSchema> {
  const schema = await readPrismaSchema(appRoot, path)
  if (schema.provider !== 'mysql') {
    throw new GeneratorError(
      `${path}: the datasource provider is ${schema.provider === undefined ? 'missing' : `"${schema.provider}"`}; a2a migrate writes MySQL/MariaDB migrations, for provider = "mysql". On SQLite and PostgreSQL use \`prisma migrate dev\``,
      path,
    )
  }
  return targetSchema(schema.datamodel)
}
