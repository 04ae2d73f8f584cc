/**
 * The app template under `templates/app/` (where: the generators' `templates-root.ts`): real files,
 * copied as they are or rendered with Handlebars when they end in `.hbs`. A variant is picked by filename
 * (`db.sqlite.ts`, `db.postgresql.ts.hbs`: the other databases' files are skipped; `support.server.ts.hbs`
 * serves PostgreSQL and MySQL), and
 * `_gitignore` becomes `.gitignore` (npm drops `.gitignore` files from published packages).
 * @module
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { templatesRoot } from '@a2a-agent/generators/templates-root'
import Handlebars from 'handlebars'
import type { ScaffoldOptions } from './options.js'
import { commandsFor, type PackageManager } from './package-manager.js'

export const TEMPLATE_DIRECTORY = join(templatesRoot(), 'app')

/** What differs between the databases the scaffolder offers; every per-database choice reads it. */
export interface DatabaseKind {
  /** DATABASE_URL when none is given, for the app's database name. */
  defaultUrl(dbName: string): string
  /** How its DATABASE_URLs start. */
  urlPrefixes: readonly string[]
  /** Runs as a server: it gets the template files marked `server` (`support.server.ts.hbs`). */
  server: boolean
  /**
   * The first migration: `prisma migrate dev` (which generates the client too), or, where Prisma's
   * wasm schema engine has no connector, `a2a migrate dev` then `prisma generate`.
   */
  migrator: 'prisma' | 'a2a'
  /** The first migration as the scaffolder's progress line names it, and its commands as typed by hand (each after the package manager's exec). */
  firstMigration: { label: string; commands: readonly string[] }
}

/** SQLite's and PostgreSQL's first migration: Prisma's own migrate (MySQL apps migrate with `a2a migrate`). */
const PRISMA_FIRST_MIGRATION = { label: 'Creating and applying the first migration (prisma migrate dev --name init)', commands: ['prisma migrate dev --name init'] }

export const DATABASES = {
  sqlite: {
    defaultUrl: () => 'file:./dev.db',
    urlPrefixes: ['file:'],
    server: false,
    migrator: 'prisma',
    firstMigration: PRISMA_FIRST_MIGRATION,
  },
  postgresql: {
    defaultUrl: (dbName) => `postgresql://postgres@localhost:5432/${dbName}`,
    urlPrefixes: ['postgresql://', 'postgres://'],
    server: true,
    migrator: 'prisma',
    firstMigration: PRISMA_FIRST_MIGRATION,
  },
  mysql: {
    defaultUrl: (dbName) => `mysql://root@localhost:3306/${dbName}`,
    urlPrefixes: ['mysql://', 'mariadb://'],
    server: true,
    migrator: 'a2a',
    firstMigration: {
      label: 'Creating and applying the first migration (a2a migrate dev --name init), and the Prisma client',
      commands: ['a2a migrate dev --name init', 'prisma generate'],
    },
  },
} as const satisfies Record<string, DatabaseKind>
export type Database = keyof typeof DATABASES
/** The databases' names, in the order they are offered. */
export const DATABASE_NAMES = Object.keys(DATABASES) as Database[]

/** The database a DATABASE_URL names, by its scheme; undefined for one the scaffolder does not offer. */
export function databaseOfUrl(url: string): Database | undefined {
  return DATABASE_NAMES.find((database) => DATABASES[database].urlPrefixes.some((prefix) => url.startsWith(prefix)))
}

/** What the templates may read; every key is always present (strict rendering throws on a missing one). */
export interface TemplateView {
  name: string
  title: string
  database: Database
  sqlite: boolean
  postgresql: boolean
  mysql: boolean
  example: boolean
  /** Several agents in one app (an AgentHost). */
  multiAgent: boolean
  dbName: string
  defaultUrl: string
  /** `${DATABASE_URL:-<defaultUrl>}` for npm scripts (three closing braces would confuse Handlebars). */
  urlFallback: string
  runtimeVersion: string
  cliVersion: string
  /** Linked to this repository's package folders (file: versions): its configs resolve their TypeScript sources. */
  linked: boolean
  /** @a2a-agent/runtime and create-a2a-agent come from tarballs in the app's vendor/ (`--packages`). */
  vendored: boolean
  /** The package manager the scaffolder was started with; the app's README, settings and commands use it. */
  packageManager: PackageManager
  npm: boolean
  pnpm: boolean
  yarn: boolean
  bun: boolean
  /**
   * What prisma.config.ts imports its config from. Linked, the runtime's source file: Prisma loads
   * the config through jiti, which no script can give the source condition.
   */
  prismaConfigModule: string
  /** A2A_DEV_KEYS as .env gets it; empty in .env.example (no token is ever committed). */
  devKeys: string
  /** DATABASE_URL as .env gets it; the default in .env.example (no password is ever committed). */
  envDatabaseUrl: string
  /** A2A_CARD_SIGNING_KEY as .env gets it; empty in .env.example. */
  cardSigningKey: string
}

export function templateView(options: ScaffoldOptions): TemplateView {
  const dbName = options.name.replace(/[^a-zA-Z0-9]+/g, '_').toLowerCase()
  const defaultUrl = DATABASES[options.database].defaultUrl(dbName)
  return {
    name: options.name,
    title: options.name
      .split(/[^a-zA-Z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join(' '),
    database: options.database,
    sqlite: options.database === 'sqlite',
    postgresql: options.database === 'postgresql',
    mysql: options.database === 'mysql',
    example: options.example,
    multiAgent: options.multiAgent ?? false,
    dbName,
    defaultUrl,
    urlFallback: `\${DATABASE_URL:-${defaultUrl}}`,
    runtimeVersion: options.versions.runtime,
    cliVersion: options.versions.cli,
    linked: isFolderLink(options.versions.runtime),
    vendored: options.versions.runtime.startsWith('file:vendor/'),
    packageManager: options.packageManager,
    npm: options.packageManager === 'npm',
    pnpm: options.packageManager === 'pnpm',
    yarn: options.packageManager === 'yarn',
    bun: options.packageManager === 'bun',
    prismaConfigModule: isFolderLink(options.versions.runtime) ? `${options.versions.runtime.slice('file:'.length)}/src/prisma-config.js` : '@a2a-agent/runtime/prisma-config',
    devKeys: '',
    envDatabaseUrl: defaultUrl,
    cardSigningKey: '',
  }
}

/** Files that only one package manager reads, written only for it. */
const PACKAGE_MANAGER_FILES: Record<string, PackageManager> = { '.yarnrc.yml': 'yarn', 'pnpm-workspace.yaml': 'pnpm' }

/** A `file:` link to a package folder; a `file:….tgz` tarball installs like a published version. */
function isFolderLink(version: string): boolean {
  return version.startsWith('file:') && !version.endsWith('.tgz')
}

/** The app's files, path (with `/`) to content, sorted by path. Nothing is written. */
export async function renderApp(options: ScaffoldOptions, directory = TEMPLATE_DIRECTORY): Promise<Map<string, string>> {
  const view = templateView(options)
  const files = new Map<string, string>()
  const entries = await readdir(directory, { recursive: true, withFileTypes: true })
  const paths = entries
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.parentPath ?? entry.path}/${entry.name}`.slice(directory.length).replace(/^\/+/, ''))
    .sort()
  for (const path of paths) {
    const target = targetPath(path, options.database)
    if (!target) continue
    const reader = PACKAGE_MANAGER_FILES[target]
    if (reader && reader !== options.packageManager) continue
    const source = await readFile(`${directory}/${path}`, 'utf8')
    files.set(target, path.endsWith('.hbs') ? render(source, view) : source)
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** Where a template file lands, or undefined when it belongs to the other database. */
export function targetPath(path: string, database: Database): string | undefined {
  let target = path.replace(/\.hbs$/, '')
  const segments = target.split('/')
  const base = segments.pop()!
  const parts = base.split('.')
  // `name.<database>.ext`: the variant marker sits just before the extension; `server` stands for
  // both databases that run as a server (PostgreSQL, MySQL), whose files differ only in places.
  const marker = parts.length > 2 ? parts[parts.length - 2] : undefined
  let name = base
  if (marker && (Object.hasOwn(DATABASES, marker) || marker === 'server')) {
    if (marker === 'server' ? !DATABASES[database].server : marker !== database) return undefined
    name = [...parts.slice(0, -2), parts[parts.length - 1]].join('.')
  }
  if (name.startsWith('_')) name = `.${name.slice(1)}`
  target = [...segments, name].join('/')
  return target
}

/**
 * Output is code, so nothing is HTML-escaped; strict makes a misspelt key throw. The helpers spell a
 * command for the app's package manager: `{{run "db:change" "--name x"}}`, `{{exec "prisma studio"}}`,
 * `{{install}}`, `{{test}}`.
 */
function render(source: string, view: TemplateView): string {
  const commands = commandsFor(view.packageManager)
  const handlebars = Handlebars.create()
  // Handlebars passes its options object last; only string arguments are the command's.
  const words = (args: unknown[]) => args.filter((arg): arg is string => typeof arg === 'string')
  handlebars.registerHelper('run', (...args: unknown[]) => {
    const [script, extra] = words(args)
    return commands.run(script!, extra)
  })
  handlebars.registerHelper('exec', (...args: unknown[]) => commands.exec(words(args)[0]!))
  handlebars.registerHelper('install', () => commands.install)
  handlebars.registerHelper('test', () => commands.test)
  return handlebars.compile(source, { noEscape: true, strict: true })(view)
}

/** The app's .env: .env.example with this app's database and its own secrets filled in. */
export async function renderEnv(options: ScaffoldOptions, secrets: { devKeys: string; cardSigningKey: string }, directory = TEMPLATE_DIRECTORY): Promise<string> {
  const source = await readFile(join(directory, '.env.example.hbs'), 'utf8')
  return render(source, { ...templateView(options), ...secrets, envDatabaseUrl: options.databaseUrl })
}
