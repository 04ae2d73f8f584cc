/**
 * `a2a migrate dev|deploy|reset`: `prisma migrate` for MySQL/MariaDB apps. Prisma 6.19's wasm
 * schema engine (the one that needs no native download) has no MySQL connector, so these write
 * and apply the migrations themselves, in Prisma's format: `prisma migrate status` and a later
 * native engine read the same history.
 * @module
 */
import { existsSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { GeneratorError } from '@a2a-agent/generators'
import { type DataLossWarning, diffSchemas, introspect, quoteName, readMysqlSchema } from '@a2a-agent/generators/mysql'
import { CliUserError } from '../cli/app-db.js'
import { type Io, formatUnexpectedError, formatUserError } from '../cli/io.js'
import { type DatabaseConnection, ensureDatabase, parseMysqlUrl, recreateDatabase, type Server, withConnection, withShadowDatabase } from './connection.js'
import { appliedMigrations, applyMigration, ensureHistoryTable, MigrationError, pendingMigrations, readMigrations, writeMigration } from './history.js'

export type MigrateAction = 'dev' | 'deploy' | 'reset'

export interface MigrateOptions {
  /** App root, relative to `cwd`; default `.`. */
  app?: string
  /** Prisma schema file or folder, relative to the app; default `prisma`. */
  schema?: string
  /** dev: the new migration's name; default `migration`. */
  name?: string
  /** dev: write the migration without applying it. */
  createOnly?: boolean
  /** dev: run steps that lose data in tables holding rows. */
  acceptDataLoss?: boolean
  /** reset: required, since it drops the database. */
  force?: boolean
  /** The database; default DATABASE_URL from the environment, else the app's .env. */
  url?: string
  cwd?: string
}

interface App {
  root: string
  server: Server
  schema: string
  /** The migrations folder, absolute. */
  migrations: string
  /** The migrations folder as messages show it. */
  shown: string
}

/** Runs the command; resolves to the exit code (1 for a mistake the user can fix). */
export async function runMigrate(action: MigrateAction, options: MigrateOptions, io: Io): Promise<number> {
  const cwd = options.cwd ?? process.cwd()
  try {
    const app = await locateApp(options, cwd)
    if (action === 'deploy') await deploy(app, io)
    else if (action === 'reset') await reset(app, options, io)
    else await dev(app, options, io)
    return 0
  } catch (error) {
    if (error instanceof CliUserError || error instanceof GeneratorError) {
      io.stderr.write(formatUserError(error, cwd))
      return 1
    }
    io.stderr.write(formatUnexpectedError(error))
    return 2
  }
}

async function locateApp(options: MigrateOptions, cwd: string): Promise<App> {
  const root = resolve(cwd, options.app ?? '.')
  // DATABASE_URL as the app reads it: the environment, else the app's .env.
  if (!options.url && !process.env.DATABASE_URL && existsSync(join(root, '.env'))) process.loadEnvFile(join(root, '.env'))
  const url = options.url ?? process.env.DATABASE_URL
  if (!url) throw new CliUserError('DATABASE_URL is not set; set it (or put it in the app’s .env) to mysql://user:password@host:3306/database')
  const server = parseMysqlUrl(url)
  const schema = options.schema ?? 'prisma'
  const info = await stat(join(root, schema)).catch(() => undefined)
  const folder = info?.isDirectory() ? join(root, schema) : dirname(join(root, schema))
  const migrations = join(folder, 'migrations')
  return { root, server, schema, migrations, shown: relative(cwd, migrations) || '.' }
}

/** Applies the pending migrations, creating the database when missing: for production and CI. */
async function deploy(app: App, io: Io): Promise<void> {
  if (await ensureDatabase(app.server)) io.stdout.write(`Created database ${app.server.database} on ${app.server.shown}.\n`)
  const local = await readMigrations(app.migrations)
  await withConnection(app.server, async (db) => {
    await ensureHistoryTable(db)
    const pending = pendingMigrations(local, await appliedMigrations(db), app.shown)
    for (const migration of pending) await applyMigration(db, migration)
    io.stdout.write(
      pending.length === 0
        ? `No pending migrations to apply (${local.length} in ${app.shown}).\n`
        : `Applied ${pending.length} migration${pending.length === 1 ? '' : 's'}:\n${pending.map((migration) => `  ${migration.name}\n`).join('')}`,
    )
  })
}

/** Drops the database, recreates it and applies every migration. */
async function reset(app: App, options: MigrateOptions, io: Io): Promise<void> {
  if (!options.force) throw new CliUserError(`a2a migrate reset drops ${app.server.database} on ${app.server.shown} with all its data; pass --force to do it`)
  const local = await readMigrations(app.migrations)
  await recreateDatabase(app.server)
  await withConnection(app.server, async (db) => {
    await ensureHistoryTable(db)
    for (const migration of local) await applyMigration(db, migration)
  })
  io.stdout.write(`Reset ${app.server.database}; applied ${local.length} migration${local.length === 1 ? '' : 's'}.\n`)
}

/**
 * Checks the history (replayed on a shadow database) against the database, applies what is
 * pending, then writes (and, without --create-only, applies) the migration from there to the
 * Prisma schema.
 */
async function dev(app: App, options: MigrateOptions, io: Io): Promise<void> {
  const target = await readMysqlSchema(app.root, app.schema)
  if (await ensureDatabase(app.server)) io.stdout.write(`Created database ${app.server.database} on ${app.server.shown}.\n`)
  const local = await readMigrations(app.migrations)
  const history = await withShadowDatabase(app.server, async (shadow) => {
    await ensureHistoryTable(shadow)
    for (const migration of local) {
      await applyMigration(shadow, migration).catch((error: unknown) => {
        if (!(error instanceof MigrationError)) throw error
        throw new CliUserError(
          `migration ${migration.name} fails on an empty database (the shadow database, where the history is replayed): ${error.reason}. Fix its migration.sql`,
        )
      })
    }
    return introspect(shadow.query)
  })
  await withConnection(app.server, async (db) => {
    await ensureHistoryTable(db)
    const pending = pendingMigrations(local, await appliedMigrations(db), app.shown)
    for (const migration of pending) {
      await applyMigration(db, migration)
      io.stdout.write(`Applied ${migration.name}\n`)
    }
    const live = await introspect(db.query)
    const drift = diffSchemas(history, live)
    if (drift.statements.length > 0) {
      throw new CliUserError(
        `${app.server.database} has drifted from ${app.shown}: the migrations build a different schema than the database has (changed outside the migrations). Getting from the migrations to the database takes:\n\n${drift.statements.join('\n\n')}\n\nRun \`a2a migrate reset --force\` to rebuild a development database from the migrations (it drops all data), or write a migration holding those statements`,
      )
    }
    const change = diffSchemas(live, target)
    // As Prisma does: --create-only with nothing to change writes an empty migration for hand SQL.
    if (change.statements.length === 0 && !options.createOnly) {
      io.stdout.write(`Already in sync: ${app.server.database} matches the Prisma schema (${local.length} migration${local.length === 1 ? '' : 's'} in ${app.shown}).\n`)
      return
    }
    const losses = await warningsWithRows(db, change.warnings)
    if (losses.length > 0 && !options.acceptDataLoss) {
      throw new CliUserError(
        `the schema change would lose data in ${app.server.database}:\n${losses.map((warning) => `  - it ${warning}\n`).join('')}Nothing was written. If that is what you want (a renamed field is a drop and an add: copy the data across in the migration, with --create-only), rerun with --accept-data-loss`,
      )
    }
    const sql = change.statements.length === 0 ? '-- This is an empty migration.\n' : `${change.statements.join('\n\n')}\n`
    const migration = await writeMigration(app.migrations, options.name ?? 'migration', sql, local)
    const written = join(app.shown, migration.name, 'migration.sql')
    if (options.createOnly) {
      io.stdout.write(`Created ${written} (not applied). Edit it if you need to, then run \`a2a migrate dev\` to apply it.\n`)
      return
    }
    await applyMigration(db, migration)
    io.stdout.write(`Created and applied ${written}\n${losses.length > 0 ? `Accepted data loss: it ${losses.join('; it ')}\n` : ''}`)
  })
}

/** The warnings whose table holds rows, in words; an empty table loses nothing. */
async function warningsWithRows(db: DatabaseConnection, warnings: readonly DataLossWarning[]): Promise<string[]> {
  const rows = new Map<string, number>()
  const found: string[] = []
  for (const warning of warnings) {
    if (!rows.has(warning.table)) {
      const [row] = await db.query(`SELECT COUNT(*) AS n FROM ${quoteName(warning.table)}`)
      rows.set(warning.table, Number(row?.n ?? 0))
    }
    const count = rows.get(warning.table)!
    if (count > 0) found.push(`${warning.message} (${count} row${count === 1 ? '' : 's'})`)
  }
  return found
}
