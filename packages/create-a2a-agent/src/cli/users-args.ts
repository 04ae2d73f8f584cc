/**
 * The arguments of `a2a users export | erase <id>`; users.ts runs them (loaded only then).
 * @module
 */
import type { Argv } from 'yargs'
import { APP_OPTION } from './keys-args.js'
import type { UsersAction } from './users.js'

const USERS_DESCRIPTION = `One user's A2A data (tasks with their full history, push configs, API keys), for access and erasure requests. The commands use the app's own client, createDb() from src/db.ts, so set DATABASE_URL as the app reads it. The app's own tables (invoices, customers, …) are the app's to handle.`

/** Declares the users subcommands on `users`; `run` receives what was asked. */
export function usersCommands<T>(users: Argv<T>, run: (action: UsersAction, app: string | undefined) => void) {
  return users
    .usage(`Usage: $0 users <export|erase> <id> [options]\n\n${USERS_DESCRIPTION}`)
    .option('app', APP_OPTION)
    .command(
      'export <id>',
      'Print all of a user’s tasks, push configs and API keys as JSON',
      (exporting) => exporting.positional('id', { type: 'string', demandOption: true, describe: 'The user (owner) id' }),
      (argv) => run({ action: 'export', user: argv.id }, argv.app),
    )
    .command(
      'erase <id>',
      'Delete all of a user’s tasks, push configs and API keys',
      (erase) =>
        erase
          .positional('id', { type: 'string', demandOption: true, describe: 'The user (owner) id' })
          .option('yes', { type: 'boolean', describe: 'Confirm: erasing cannot be undone' }),
      (argv) => run({ action: 'erase', user: argv.id, yes: argv.yes ?? false }, argv.app),
    )
    .demandCommand(1, 'Name what to do, e.g. `a2a users export <id>`.')
}
