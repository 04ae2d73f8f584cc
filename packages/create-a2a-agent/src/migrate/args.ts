/**
 * The arguments of `a2a migrate dev | deploy | reset`; migrate.ts runs them (loaded only then, so
 * --help and usage errors stay quick).
 * @module
 */
import type { Argv } from 'yargs'
import { APP_OPTION } from '../cli/keys-args.js'
import type { MigrateAction, MigrateOptions } from './migrate.js'

const MIGRATE_DESCRIPTION = `Migrations for MySQL/MariaDB apps (DATABASE_URL=mysql://…), where Prisma 6.19's wasm schema engine has no connector. Written in Prisma's format: prisma/migrations/<timestamp>_<name>/migration.sql and the _prisma_migrations table. The database is created when missing.`

/** Declares the migrate subcommands on `migrate`; `run` receives what was asked. */
export function migrateCommands<T>(migrate: Argv<T>, run: (action: MigrateAction, options: MigrateOptions) => void) {
  return migrate
    .usage(`Usage: $0 migrate <dev|deploy|reset> [options]\n\n${MIGRATE_DESCRIPTION}`)
    .option('app', APP_OPTION)
    .option('schema', { type: 'string', describe: 'Prisma schema file or folder, relative to --app', defaultDescription: 'prisma' })
    .command(
      'dev',
      'Write a migration from the Prisma schema to the database, and apply it',
      (dev) =>
        dev
          .option('name', { type: 'string', describe: 'The migration’s name', defaultDescription: 'migration' })
          .option('create-only', { type: 'boolean', describe: 'Write the migration without applying it (to edit it first)' })
          .option('accept-data-loss', { type: 'boolean', describe: 'Run steps that drop or change columns and tables holding rows' })
          .example('$0 migrate dev --name add_notes', 'Write and apply prisma/migrations/<timestamp>_add_notes'),
      (argv) => {
        run('dev', { app: argv.app, schema: argv.schema, name: argv.name, createOnly: argv.createOnly, acceptDataLoss: argv.acceptDataLoss })
      },
    )
    .command(
      'deploy',
      'Apply the pending migrations (production, CI)',
      (deploy) => deploy,
      (argv) => {
        run('deploy', { app: argv.app, schema: argv.schema })
      },
    )
    .command(
      'reset',
      'Drop the database, recreate it and apply every migration (development only)',
      (reset) => reset.option('force', { type: 'boolean', describe: 'Required: the database’s data is lost' }),
      (argv) => {
        run('reset', { app: argv.app, schema: argv.schema, force: argv.force })
      },
    )
    .demandCommand(1, 'Name what to do, e.g. `a2a migrate dev`.')
}
