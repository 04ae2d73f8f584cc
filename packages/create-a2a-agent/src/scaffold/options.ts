/**
 * What `create-a2a-agent` is asked to make: parsed from flags, completed by prompts in a terminal,
 * or filled with defaults under `--yes`.
 * @module
 */
import { randomBytes } from 'node:crypto'
import type { PackageManager } from './package-manager.js'
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

/** Asks one question; resolves to the answer line. Injected so tests answer without a terminal. */
export type Ask = (question: string) => Promise<string>

/** Fills what the flags left open by asking; an empty answer takes the default shown. */
export async function promptAnswers(given: Answers, ask: Ask): Promise<Required<Answers>> {
  const database =
    given.database ??
    (await choose(ask, 'Database', ['sqlite', 'postgresql'] as const, DEFAULTS.database))
  const example =
    given.example ??
    (await choose(ask, 'Start with', ['example', 'empty'] as const, 'example')) === 'example'
  const install = given.install ?? (await confirm(ask, 'Install dependencies now (npm install)?', DEFAULTS.install))
  return { database, example, install }
}

export function defaultAnswers(given: Answers): Required<Answers> {
  return { ...DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) }
}

async function choose<T extends string>(ask: Ask, label: string, choices: readonly T[], fallback: T): Promise<T> {
  const shown = choices.map((choice, index) => `${index + 1}) ${choice}`).join('  ')
  for (;;) {
    const answer = (await ask(`${label}? ${shown} [${fallback}] `)).trim().toLowerCase()
    if (answer === '') return fallback
    const picked = choices.find((choice, index) => answer === choice || answer === String(index + 1) || choice.startsWith(answer))
    if (picked) return picked
  }
}

async function confirm(ask: Ask, question: string, fallback: boolean): Promise<boolean> {
  for (;;) {
    const answer = (await ask(`${question} ${fallback ? '[Y/n]' : '[y/N]'} `)).trim().toLowerCase()
    if (answer === '') return fallback
    if (['y', 'yes'].includes(answer)) return true
    if (['n', 'no'].includes(answer)) return false
  }
}

/** Development keys for the users alice and bob, with tokens no other app shares. */
export function randomDevKeys(): string {
  return ['alice', 'bob'].map((owner) => `${owner}:dev-${owner}-${randomBytes(18).toString('base64url')}`).join(',')
}
