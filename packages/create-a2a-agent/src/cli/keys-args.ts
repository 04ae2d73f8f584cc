/**
 * The arguments of `a2a keys create | list | revoke`; keys.ts runs them (loaded only then, so
 * --help and usage errors stay quick).
 * @module
 */
import type { Argv } from 'yargs'
import type { KeysAction } from './keys.js'

const KEYS_DESCRIPTION = `API keys are kept in the app's database (the A2AApiKey model in prisma/a2a.prisma), as hashes only. The commands use the app's own client, createDb() from src/db.ts, so set DATABASE_URL as the app reads it.`

export const APP_OPTION = { type: 'string', describe: 'App root (the folder with package.json)', defaultDescription: '.' } as const

/** Declares the keys subcommands on `keys`; `run` receives what was asked. */
export function keysCommands<T>(keys: Argv<T>, run: (action: KeysAction, app: string | undefined) => void) {
  return keys
    .usage(`Usage: $0 keys <create|list|revoke> [options]\n\n${KEYS_DESCRIPTION}`)
    .option('app', APP_OPTION)
    .command(
      'create',
      'Create a key for a user and print it (once)',
      (create) =>
        create
          .option('user', { type: 'string', demandOption: true, describe: 'The user the key acts as (its owner)' })
          .option('scopes', { type: 'string', describe: 'Narrow the key to these comma-separated scopes; its tasks live in that tier' })
          .option('tenant', { type: 'string', describe: 'The tenant the key acts in' })
          .option('force', { type: 'boolean', describe: 'Create the key even when --user is no row of the owner model' })
          .example('$0 keys create --user alice', 'A full key for alice')
          .example('$0 keys create --user alice --scopes invoices:read --tenant acme', 'A narrowed key'),
      (argv) => {
        const action: KeysAction = {
          action: 'create',
          user: argv.user,
          ...(argv.force === true && { force: true }),
          ...(argv.tenant !== undefined && { tenant: argv.tenant }),
          ...(argv.scopes !== undefined && { scopes: argv.scopes }),
        }
        run(action, argv.app)
      },
    )
    .command(
      'list',
      'List keys (never the keys themselves)',
      (list) => list.option('user', { type: 'string', describe: 'Only this user’s keys' }),
      (argv) => {
        run({ action: 'list', ...(argv.user !== undefined && { user: argv.user }) }, argv.app)
      },
    )
    .command(
      'revoke <id>',
      'Revoke a key: requests with it get 401 from now on',
      (revoke) => revoke.positional('id', { type: 'string', demandOption: true, describe: 'The key’s id, as `a2a keys list` shows it' }),
      (argv) => {
        run({ action: 'revoke', id: argv.id }, argv.app)
      },
    )
    .demandCommand(1, 'Name what to do with keys, e.g. `a2a keys list`.')
}
