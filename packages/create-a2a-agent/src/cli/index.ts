/**
 * The `a2a` command line: yargs parses, commands run against an injected `Io`. `runA2a` returns
 * the exit code instead of exiting, so tests drive it in-process.
 * @module
 */
import yargs from 'yargs'
import type { GenerateEntitiesOptions, Planner } from './generate-entities.js'
import { keysCommands } from './keys-args.js'
import { usersCommands } from './users-args.js'
import { migrateCommands } from '../migrate/args.js'
import type { KeysAction } from './keys.js'
import { type Io, formatUnexpectedError } from './io.js'
import { VERSION } from '../package-root.js'

export interface RunOptions {
  planner?: Planner
  cwd?: string
}

const ENTITIES_DESCRIPTION = `Generate agent tools (MCP tools and A2A skills) for the entities declared in src/entities.ts.

Writes src/a2a/<entity>.gen.ts, src/a2a/entities.gen.ts, test/entities/<entity>.gen.test.ts and .a2a/manifest.json, and creates src/a2a/hooks/<entity>.ts once. Generated files are rewritten when their content changes; hooks files are yours and never overwritten. A generated file edited by hand stops the run (nothing is written) unless you pass --force.`

class UsageError extends Error {}

/** Parses `args` (without `node` and the script) and runs the command; resolves to the exit code. */
export async function runA2a(args: readonly string[], io: Io, options: RunOptions = {}): Promise<number> {
  let command: (() => Promise<number>) | undefined
  // Loaded only when the command runs, so --help and usage errors stay quick.
  const keysCommand = async (action: KeysAction, app: string | undefined) => {
    const { runKeys } = await import('./keys.js')
    return runKeys(action, { app, cwd: options.cwd }, io)
  }
  const parser = yargs()
    .scriptName('a2a')
    .usage('Usage: $0 <command> [options]')
    .command('generate', 'Generate code from the app’s declarations', (generate) =>
      generate
        .usage('Usage: $0 generate <target> [options]')
        .command(
          'entities',
          'Generate agent tools for the entities declared in src/entities.ts',
          (entities) =>
            entities
              .usage(`Usage: $0 generate entities [options]\n\n${ENTITIES_DESCRIPTION}`)
              .option('app', {
                type: 'string',
                describe: 'App root (the folder with package.json)',
                defaultDescription: '.',
              })
              .option('entities', {
                type: 'string',
                describe: 'Entity declarations, relative to --app',
                defaultDescription: 'src/entities.ts',
              })
              .option('schema', {
                type: 'string',
                describe: 'Prisma schema file or folder, relative to --app',
                defaultDescription: 'prisma/ or prisma/schema.prisma',
              })
              .option('dry-run', { type: 'boolean', describe: 'List what would change; write nothing' })
              .option('diff', { type: 'boolean', describe: 'Print a unified diff of what would change; write nothing' })
              .option('check', {
                type: 'boolean',
                describe: 'Write nothing; exit 1 when generated files are stale or edited by hand (for CI)',
              })
              .option('force', {
                type: 'boolean',
                describe: 'Overwrite or delete generated files even when edited by hand',
              })
              .group(['dry-run', 'diff', 'check'], 'Modes (pick at most one):')
              .check((argv) => {
                const modes = ['--dry-run', '--diff', '--check'].filter((flag) => argv[flag.slice(2)])
                if (modes.length > 1) throw new UsageError(`${modes.join(' and ')} cannot be combined; pick one.`)
                return true
              })
              .example('$0 generate entities', 'Write the generated files')
              .example('$0 generate entities --dry-run', 'See which files would change')
              .example('$0 generate entities --check', 'Fail CI when generated code is stale')
              .example('$0 generate entities --app apps/shop', 'Generate for the app in apps/shop'),
          (argv) => {
            const generateOptions: GenerateEntitiesOptions = {
              app: argv.app,
              entities: argv.entities,
              schema: argv.schema,
              dryRun: argv.dryRun,
              diff: argv.diff,
              check: argv.check,
              force: argv.force,
              cwd: options.cwd,
            }
            // Loaded only when the command runs, so --help and usage errors stay quick.
            command = async () => {
              const { runGenerateEntities } = await import('./generate-entities.js')
              return runGenerateEntities(generateOptions, io, options.planner)
            }
          },
        )
        .demandCommand(1, 'Name what to generate, e.g. `a2a generate entities`.'),
    )
    .command('keys', 'Create, list and revoke the app’s API keys', (keys) =>
      keysCommands(keys, (action, app) => {
        command = () => keysCommand(action, app)
      }),
    )
    .command('users', 'Export or erase one user’s A2A data', (users) =>
      usersCommands(users, (action, app) => {
        command = async () => (await import('./users.js')).runUsers(action, { app, cwd: options.cwd }, io)
      }),
    )
    .command('migrate', 'Write and apply MySQL/MariaDB migrations (Prisma’s format)', (migrate) =>
      migrateCommands(migrate, (action, migrateOptions) => {
        command = async () => (await import('../migrate/migrate.js')).runMigrate(action, { ...migrateOptions, cwd: options.cwd }, io)
      }),
    )
    .command(
      'inbox-link',
      'Print a one-time link that signs a person in to the app’s inbox (/inbox)',
      (link) =>
        link
          .option('user', { type: 'string', demandOption: true, describe: 'The person it signs in (the owner of their tasks)' })
          .option('tenant', { type: 'string', describe: 'The tenant they act in' })
          .option('minutes', { type: 'number', describe: 'How long the link works', default: 15 })
          .option('url', { type: 'string', describe: 'The app’s base URL', defaultDescription: 'PUBLIC_URL, else http://localhost:$PORT' })
          .option('app', { type: 'string', describe: 'App root (the folder with package.json)', defaultDescription: '.' })
          .example('$0 inbox-link --user alice', 'A link for alice, valid 15 minutes'),
      (argv) => {
        command = async () =>
          (await import('./inbox-link.js')).runInboxLink(
            { user: argv.user, minutes: argv.minutes, ...(argv.tenant !== undefined && { tenant: argv.tenant }), ...(argv.url !== undefined && { url: argv.url }) },
            { app: argv.app, cwd: options.cwd },
            io,
          )
      },
    )
    .demandCommand(1, 'Name a command, e.g. `a2a generate entities`.')
    .recommendCommands()
    .strict()
    .version(VERSION)
    .help()
    .alias('help', 'h')
    .wrap(Math.min(100, process.stdout.columns || 80))
    .exitProcess(false)
    // Throwing stops yargs before the handler runs; the catch below prints one line, not the help.
    .fail((message, error) => {
      throw error ?? new UsageError(message)
    })

  let output = ''
  try {
    await parser.parseAsync([...args], {}, (_error, _argv, text) => {
      output = text
    })
  } catch (error) {
    if (!(error instanceof UsageError) && !isYargsValidation(error)) {
      io.stderr.write(formatUnexpectedError(error))
      return 2
    }
    io.stderr.write(`a2a: ${usageMessage((error as Error).message, args)}\nRun \`${helpCommand(args)}\` for usage.\n`)
    return 1
  }
  if (command) return command()
  if (output) io.stdout.write(`${output}\n`) // --help or --version
  return 0
}

// yargs reports unknown flags and missing commands as plain Errors (named YError).
function isYargsValidation(error: unknown): boolean {
  return error instanceof Error && error.name === 'YError'
}

// recommendCommands() says only "Did you mean entities?"; name the word it is correcting.
function usageMessage(message: string, args: readonly string[]): string {
  if (!message.startsWith('Did you mean')) return message
  const words = args.filter((arg) => !arg.startsWith('-'))
  const typo = ['generate', 'keys', 'users', 'migrate'].includes(words[0] ?? '') ? words[1] : words[0]
  return `Unknown command "${typo}". ${message}`
}

function helpCommand(args: readonly string[]): string {
  const words = args.filter((arg) => !arg.startsWith('-'))
  if (words[0] === 'keys') return ['create', 'list', 'revoke'].includes(words[1] ?? '') ? `a2a keys ${words[1]} --help` : 'a2a keys --help'
  if (words[0] === 'users') return ['export', 'erase'].includes(words[1] ?? '') ? `a2a users ${words[1]} --help` : 'a2a users --help'
  if (words[0] === 'migrate') return ['dev', 'deploy', 'reset'].includes(words[1] ?? '') ? `a2a migrate ${words[1]} --help` : 'a2a migrate --help'
  if (words[0] !== 'generate') return 'a2a --help'
  return words[1] === 'entities' ? 'a2a generate entities --help' : 'a2a generate --help'
}
