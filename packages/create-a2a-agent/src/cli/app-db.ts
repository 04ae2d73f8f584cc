/**
 * The app's own database client, for commands that act on its data (`a2a keys`, `a2a users`):
 * `createDb()` from the app's src/db.ts, imported through tsx as the generator imports
 * src/entities.ts, so the command sees the database exactly as the app does (DATABASE_URL
 * included, from the app's .env when the environment does not set it).
 * @module
 */
import { existsSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { tsImport } from 'tsx/esm/api'
import { type Io, formatUnexpectedError } from './io.js'

/** A mistake the user can fix: printed as one line, exit code 1. */
export class CliUserError extends Error {
  override name = 'CliUserError'
}

export interface AppDbOptions {
  /** App root, relative to `cwd`; default `.`. */
  app?: string
  /** Folder `app` is resolved against; default `process.cwd()`. */
  cwd?: string
}

interface Disconnectable {
  $disconnect(): Promise<void>
}

const DB_FILE = 'src/db.ts'

/**
 * Runs `fn` on a fresh client from the app's `createDb()`, and disconnects it afterwards. `Client`
 * is what the caller needs of it (structural, like the runtime's own Prisma types); an app whose
 * schema lacks the models fails at the first query, with the database's message.
 */
export async function withAppDb<Client, R>(options: AppDbOptions, fn: (db: Client, appRoot: string) => Promise<R>): Promise<R> {
  const appRoot = resolve(options.cwd ?? process.cwd(), options.app ?? '.')
  // DATABASE_URL and the rest as the app reads them (loadDotEnv in the runtime): the environment,
  // else the app's .env.
  const dotEnv = join(appRoot, '.env')
  if (existsSync(dotEnv)) process.loadEnvFile(dotEnv)
  const path = join(appRoot, DB_FILE)
  if (
    !(await access(path).then(
      () => true,
      () => false,
    ))
  ) {
    throw new CliUserError(`${join(options.app ?? '.', DB_FILE)}: not found; the app must export \`createDb()\` (its Prisma client) from ${DB_FILE}`)
  }
  let module: Record<string, unknown>
  try {
    module = (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>
  } catch (error) {
    throw new CliUserError(`${DB_FILE}: importing it failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  // A file the app's package.json leaves CommonJS arrives wrapped: its exports sit on `default`.
  const createDb = module.createDb ?? (module.default as Record<string, unknown> | undefined)?.createDb
  if (typeof createDb !== 'function') throw new CliUserError(`${DB_FILE}: exports no \`createDb()\` function`)
  const db = (await createDb()) as Client & Disconnectable
  try {
    return await fn(db, appRoot)
  } finally {
    await db.$disconnect()
  }
}

/**
 * Reports a failed command on stderr and returns its exit code: 1 with a one-line report for what
 * the user can fix (a CliUserError, or the database's own refusal), 2 for anything else, a bug.
 */
export function reportFailure(error: unknown, io: Io): 1 | 2 {
  const refusal = databaseRefusal(error)
  io.stderr.write(refusal ?? formatUnexpectedError(error))
  return refusal ? 1 : 2
}

/** The one-line report of a CliUserError or of the database's refusal (no such table, unreachable server). */
function databaseRefusal(error: unknown): string | undefined {
  if (error instanceof CliUserError) return `a2a: ${error.message}\n`
  if (!(error instanceof Error) || !/^Prisma|^DriverAdapter/.test(error.name)) return undefined
  // Prisma's message opens with the calling source; its last line is the reason.
  const reason = error.message.trim().split('\n').at(-1)
  return `a2a: the database refused: ${reason}\nIs DATABASE_URL set as the app expects, and are its migrations applied?\n`
}
