/**
 * `@a2a-agent/runtime/prisma-config`: an app's whole prisma.config.ts. Prisma 6.19 with a driver
 * adapter runs the wasm schema engine, so no command downloads a native engine (offline, behind a
 * firewall); the fixes the CLI needs on each adapter ship here, with the runtime's updates.
 *
 * Loading it loads the app's `.env` (as the app and the `a2a` commands do) and sets DATABASE_URL
 * to the app's default when nothing set it, so bare `npx prisma migrate dev`, `npx prisma studio`
 * and `npx prisma db seed` work in the app folder.
 *
 * @example
 * ```ts
 * // prisma.config.ts
 * import { prismaConfig } from '@a2a-agent/runtime/prisma-config'
 *
 * export default prismaConfig({ defaultUrl: 'file:./dev.db', seed: 'tsx prisma/seed.ts' })
 * ```
 * @module
 */
import { defineConfig, type PrismaConfigInternal } from 'prisma/config'
import { loadDotEnv } from './env/dot-env.js'
import { pgMigrateAdapter } from './migrate/pg-adapter.js'
import { sqliteMigrateAdapter } from './migrate/sqlite-adapter.js'
import { hideDatasourceUrlWarning } from './migrate/url-warning.js'
import { fixWasmSchemaEngine } from './migrate/wasm-engine.js'

export interface PrismaConfigOptions {
  /** The database when neither the environment nor `.env` sets DATABASE_URL. */
  defaultUrl: string
  /** Schema folder (or file), relative to the app folder; default `prisma`. */
  schema?: string
  /** Migrations folder; default `migrations` inside the schema folder. */
  migrations?: string
  /** The seed command `prisma db seed` runs (and `migrate dev` / `migrate reset` after them). */
  seed?: string
}

/** Whether `url` names a PostgreSQL database (else it is a SQLite `file:` URL). */
export function isPostgresqlUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url)
}

/** Whether `url` names a MySQL or MariaDB database. */
export function isMysqlUrl(url: string): boolean {
  return /^(mysql|mariadb):\/\//.test(url)
}

/**
 * Prisma 6.19's wasm schema engine (the one that runs through a driver adapter, with no engine
 * download) has only the PostgreSQL and SQLite connectors. `prisma generate` never calls this;
 * the schema commands stop here, naming the `a2a migrate` commands that do the same on MySQL.
 */
async function mysqlMigrateAdapter(): Promise<never> {
  throw new Error(
    'Prisma 6.19 runs migrations through its wasm schema engine, which has no MySQL/MariaDB connector, so prisma migrate and db push cannot run on a mysql:// DATABASE_URL. Use `npx a2a migrate dev` (instead of prisma migrate dev), `npx a2a migrate deploy` (instead of prisma migrate deploy) and `npx a2a migrate reset --force`: they write and apply the same prisma/migrations and _prisma_migrations.',
  )
}

/**
 * DATABASE_URL after loading `.env`; set to `defaultUrl` when neither had it, because the schema
 * reads `env("DATABASE_URL")` and Prisma falls back to downloading engines when it cannot.
 */
export function databaseUrl(defaultUrl: string): string {
  loadDotEnv()
  process.env.DATABASE_URL ||= defaultUrl
  return process.env.DATABASE_URL
}

/** The config for the database in DATABASE_URL (SQLite, PostgreSQL or MySQL/MariaDB, by its scheme). */
export function prismaConfig(options: PrismaConfigOptions): PrismaConfigInternal {
  const url = databaseUrl(options.defaultUrl)
  fixWasmSchemaEngine()
  hideDatasourceUrlWarning()
  const schema = options.schema ?? 'prisma'
  return defineConfig({
    experimental: { adapter: true },
    engine: 'js',
    schema,
    migrations: {
      path: options.migrations ?? `${schema.replace(/\/[^/]*\.prisma$/, '')}/migrations`,
      ...(options.seed !== undefined && { seed: options.seed }),
    },
    adapter: () => (isPostgresqlUrl(url) ? pgMigrateAdapter(url) : isMysqlUrl(url) ? mysqlMigrateAdapter() : sqliteMigrateAdapter(url)),
  })
}
