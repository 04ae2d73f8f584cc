/**
 * The `create-a2a-agent` flags, parsed with yargs into plain values (or the help/version text, or
 * a usage error) without exiting, so tests drive it in-process.
 * @module
 */
import yargs from 'yargs'
import { DATABASE_NAMES, type Database } from './templates.js'

export interface CreateFlags {
  /** Undefined when omitted: asked for in a terminal. */
  directory?: string
  database?: Database
  /** true for --example, false for --empty, undefined when neither was given. */
  example?: boolean
  /** false for --no-install, undefined when not given (asked, or defaulted to true). */
  install?: boolean
  git: boolean
  yes: boolean
  /** Several agents in one app (an AgentHost) instead of one exchange at /a2a. */
  multiAgent: boolean
  /** A folder holding `npm pack` tarballs of @a2a-agent/runtime and create-a2a-agent, used instead of the registry's. */
  packages?: string
}

export type ParsedArgs = { kind: 'run'; flags: CreateFlags } | { kind: 'output'; text: string } | { kind: 'error'; message: string }

export async function parseCreateArgs(args: readonly string[], version: string): Promise<ParsedArgs> {
  let flags: CreateFlags | undefined
  const parser = yargs()
    .scriptName('create-a2a-agent')
    .usage(
      'Usage: $0 [directory] [options]\n\nCreate an A2A agent app: Express, Prisma, the @a2a-agent/runtime exchange, a `hello` skill and (with --example) a `notes` entity with its generated tools and tests. In a terminal it asks what the flags leave open; --yes takes the defaults.',
    )
    .command('$0 [directory]', false, (command) =>
      command.positional('directory', { type: 'string', describe: 'Folder to create (must be missing or empty); asked for when omitted' }),
    )
    .option('database', { type: 'string', describe: `Database: ${DATABASE_NAMES.join(', ')}`, defaultDescription: 'sqlite' })
    .check((argv) => {
      const database = argv.database as string | undefined
      if (database !== undefined && !(DATABASE_NAMES as readonly string[]).includes(database)) {
        throw new Error(`--database ${JSON.stringify(database)} is not one this scaffolds; pick one of ${DATABASE_NAMES.join(' | ')} (e.g. --database mysql for MySQL or MariaDB)`)
      }
      return true
    })
    .option('example', { type: 'boolean', describe: 'Start with the example notes entity (User + Note)', defaultDescription: 'true' })
    .option('empty', { type: 'boolean', describe: 'Start with just a User model and no entities' })
    .option('install', { type: 'boolean', describe: 'Run npm install, generate and the first migration (--no-install skips)', defaultDescription: 'true' })
    .option('multi-agent', { type: 'boolean', default: false, describe: 'Two agents in one app (/a2a/main, /a2a/helper, listed at /a2a/agents) instead of one at /a2a' })
    .option('packages', {
      type: 'string',
      describe:
        "Folder with `npm pack` tarballs of @a2a-agent/runtime and create-a2a-agent: copied into the app's vendor/ and installed from there (what `npm run create` in a clone passes)",
    })
    .option('git', { type: 'boolean', default: true, describe: 'git init and a first commit (--no-git skips)' })
    .option('yes', { alias: 'y', type: 'boolean', default: false, describe: 'Take the defaults for everything not given; never ask' })
    .conflicts('example', 'empty')
    .example('$0 my-agent', 'Ask, then create my-agent/')
    .example('$0 my-agent --yes', 'SQLite, the example entity, install and git')
    .example('$0 my-agent --database postgresql --empty --no-install', 'PostgreSQL, no entities, files only')
    .example('$0 my-agent --database mysql', 'MySQL 8 or MariaDB, on the server in DATABASE_URL')
    .strict()
    .version(version)
    .help()
    .alias('help', 'h')
    .wrap(Math.min(100, process.stdout.columns || 80))
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new Error(message)
    })

  let output = ''
  try {
    const argv = await parser.parseAsync([...args], {}, (_error, _argv, text) => {
      output = text
    })
    if (output) return { kind: 'output', text: `${output}\n` }
    const example = argv.example === true ? true : argv.empty === true || argv.example === false ? false : undefined
    flags = {
      ...(argv.directory !== undefined && { directory: String(argv.directory) }),
      database: argv.database as Database | undefined,
      example,
      install: argv.install === false ? false : argv.install === true ? true : undefined,
      git: argv.git,
      yes: argv.yes,
      multiAgent: argv.multiAgent === true,
      ...(typeof argv.packages === 'string' && { packages: argv.packages }),
    }
  } catch (error) {
    return { kind: 'error', message: (error as Error).message }
  }
  return { kind: 'run', flags }
}
