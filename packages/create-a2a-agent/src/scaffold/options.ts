/**
 * What `create-a2a-agent` is asked to make: parsed from flags, completed by prompts in a terminal,
 * or filled with defaults under `--yes`.
 * @module
 */
import { randomBytes } from 'node:crypto'
import type { PackageManager } from './package-manager.js'
import type { PackedPackages } from './vendor.js'
import type { Prompter } from './prompts.js'
import type { Database } from './templates.js'

export interface ScaffoldOptions {
  /** The app's package name: the target folder's last segment. */
  name: string
  /** Absolute path of the folder to create (or fill, when empty). */
  directory: string
  database: Database
  /** A `Note` model owned by its user, declared as the `notes` entity; otherwise just `User`. */
  example: boolean
  install: boolean
  git: boolean
  /** Two agents in one app (createAgentHost) instead of one exchange at /a2a. */
  multiAgent?: boolean
  /** The dependency specifiers written for `@a2a-agent/runtime` and `create-a2a-agent`. */
  versions: { runtime: string; cli: string }
  /** `--packages`: tarballs of this project's packages, copied into the app's vendor/ and depended on there. */
  packages?: PackedPackages
  /** A2A_DEV_KEYS for the app's .env: owner:token pairs with tokens random to this app. */
  devKeys: string
  /** Runs the install and appears in every printed command. */
  packageManager: PackageManager
  /** The app's database, written to .env: DATABASE_URL when it names one of this kind, else the default. */
  databaseUrl: string
}

/** What the flags said; unset fields are prompted for (or defaulted under --yes / without a TTY). */
export interface Answers {
  database?: Database
  example?: boolean
  install?: boolean
}

export const DEFAULTS = { database: 'sqlite', example: true, install: true } as const satisfies Required<Answers>

/** Fills what the flags left open by asking. */
export async function promptAnswers(given: Answers, prompter: Prompter): Promise<Required<Answers>> {
  const database =
    given.database ??
    (await prompter.select({
      message: 'Which database?',
      choices: [
        { value: 'sqlite', label: 'SQLite', hint: 'a file in the app folder, nothing to run' },
        { value: 'postgresql', label: 'PostgreSQL', hint: 'the server in DATABASE_URL' },
        { value: 'mysql', label: 'MySQL / MariaDB', hint: 'the server in DATABASE_URL' },
      ] as const,
      initial: DEFAULTS.database,
    }))
  const example =
    given.example ??
    (await prompter.select({
      message: 'Start with?',
      choices: [
        { value: 'example', label: 'The example', hint: 'User and Note, the notes entity with its tools and tests' },
        { value: 'empty', label: 'Empty', hint: 'a User model and no entities' },
      ] as const,
      initial: 'example',
    })) === 'example'
  const install = given.install ?? (await prompter.confirm({ message: 'Install dependencies, generate and migrate now?', initial: DEFAULTS.install }))
  return { database, example, install }
}

export function defaultAnswers(given: Answers): Required<Answers> {
  return { ...DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) }
}

/** Development keys for the users alice and bob, with tokens no other app shares. */
export function randomDevKeys(): string {
  return ['alice', 'bob'].map((owner) => `${owner}:dev-${owner}-${randomBytes(18).toString('base64url')}`).join(',')
}
