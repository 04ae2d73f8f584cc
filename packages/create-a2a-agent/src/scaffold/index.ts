/**
 * `create-a2a-agent <dir>`: parse flags, ask what is left (in a terminal), write the app from
 * templates/app/, then install, generate, write the first migration and commit. `runCreate`
 * returns the exit code instead of exiting, so tests drive it in-process.
 * @module
 */
import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import type { Io } from '../cli/io.js'
import { PACKAGE_ROOT, VERSION } from '../package-root.js'
import { formatUnexpectedError } from '../cli/io.js'
import { type Answers, type Ask, defaultAnswers, promptAnswers, type ScaffoldOptions } from './options.js'
import { parseCreateArgs } from './args.js'
import { StepError, type Run, gitInit, generateEntities, initialMigration, npmInstall, prismaEnv, prismaGenerate, run } from './steps.js'
import { renderApp, templateView } from './templates.js'

export interface CreateDeps {
  /** Folder the target is resolved against; default `process.cwd()`. */
  cwd?: string
  /** Asks a question in the terminal; absent (or with --yes) the defaults are taken. */
  ask?: Ask
  /** Runs the external commands (npm, prisma, git). */
  run?: Run
}

// This repository's root, when the scaffolder runs from it: apps scaffolded inside link the local packages.
const REPO_ROOT = resolve(PACKAGE_ROOT, '../..')

/** Parses `args` (without `node` and the script) and scaffolds; resolves to the exit code. */
export async function runCreate(args: readonly string[], io: Io, deps: CreateDeps = {}): Promise<number> {
  const parsed = await parseCreateArgs(args, VERSION)
  if (parsed.kind === 'output') {
    io.stdout.write(parsed.text)
    return 0
  }
  if (parsed.kind === 'error') {
    io.stderr.write(`create-a2a-agent: ${parsed.message}\nRun \`create-a2a-agent --help\` for usage.\n`)
    return 1
  }
  const { flags } = parsed
  const directory = resolve(deps.cwd ?? process.cwd(), flags.directory)
  try {
    const refusal = await refuseTarget(directory, flags.directory)
    if (refusal) {
      io.stderr.write(`create-a2a-agent: ${refusal}\n`)
      return 1
    }
    const given: Answers = { database: flags.database, example: flags.example, install: flags.install }
    const answers = flags.yes || !deps.ask ? defaultAnswers(given) : await promptAnswers(given, deps.ask)
    const options: ScaffoldOptions = {
      name: packageName(directory),
      directory,
      ...answers,
      git: flags.git,
      multiAgent: flags.multiAgent,
      versions: linkedVersions(directory),
    }
    return await scaffold(options, io, deps.run ?? run)
  } catch (error) {
    // Ctrl+D (or a closed stdin) at a prompt: readline rejects the pending question.
    if (error instanceof Error && error.name === 'AbortError') {
      io.stderr.write('create-a2a-agent: cancelled; nothing was written.\n')
      return 1
    }
    if (error instanceof StepError) {
      io.stderr.write(`create-a2a-agent: ${error.message}\n`)
      return 1
    }
    io.stderr.write(formatUnexpectedError(error).replace(/^a2a:/, 'create-a2a-agent:').replace('bug in a2a', 'bug in create-a2a-agent'))
    return 2
  }
}

/** Writes the app, then runs the long steps with a line of progress for each. */
export async function scaffold(options: ScaffoldOptions, io: Io, runner: Run = run): Promise<number> {
  const { directory } = options
  const files = await renderApp(options)
  for (const [path, content] of files) {
    await mkdir(dirname(join(directory, path)), { recursive: true })
    await writeFile(join(directory, path), content)
  }
  // The app's own secret, so never part of the rendered (deterministic) files: .env is git-ignored.
  await writeFile(join(directory, '.env'), `A2A_CARD_SIGNING_KEY=${cardSigningKey()}\n`, { mode: 0o600 })
  const shown = relative(process.cwd(), directory) || '.'
  io.stdout.write(`Created ${options.name} in ${shown} (${options.database}, ${options.example ? 'example notes entity' : 'empty'}): ${files.size} files.\n`)
  const env = prismaEnv(options.database, templateView(options).dbName)
  const step = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    io.stdout.write(`- ${label}… `)
    const started = Date.now()
    const result = await work()
    io.stdout.write(`done (${((Date.now() - started) / 1000).toFixed(1)} s)\n`)
    return result
  }
  if (options.install) {
    try {
      await step('Installing dependencies (npm install, a minute or two)', () => npmInstall(directory, runner))
      await step('Generating entity tools (a2a generate entities)', () => generateEntities(directory, quietIo(io)))
      await step('Generating the Prisma client (prisma generate)', () => prismaGenerate(directory, env, runner))
      await step('Writing the first migration (prisma/migrations/0001_init)', () => initialMigration(directory, options.database, env, runner))
    } catch (error) {
      if (!(error instanceof StepError)) throw error
      // The files stay: say what failed and how to finish by hand.
      io.stdout.write('failed\n')
      io.stderr.write(`create-a2a-agent: ${error.message}\n`)
      io.stdout.write(`\nThe app's files are in ${shown}; fix the problem above, then finish by hand.\n${nextSteps({ ...options, install: false }, shown)}`)
      return 1
    }
  }
  if (options.git) {
    const committed = await step('Creating a git repository with a first commit', () => gitInit(directory, runner))
    if (committed === 'inside') io.stdout.write('  (skipped: the folder is already inside a git repository)\n')
    else if (!committed) io.stdout.write('  (git init or the first commit did not succeed; commit by hand when ready)\n')
  }
  io.stdout.write(`\n${nextSteps(options, shown)}`)
  return 0
}

/** The commands to run next, printed last. */
export function nextSteps(options: ScaffoldOptions, shown: string): string {
  const lines = ['Next:', `  cd ${shown}`]
  if (!options.install) lines.push('  npm install', '  npm run generate', `  ${initialMigrationCommand(options)}`)
  if (options.database === 'postgresql') lines.push(`  createdb ${templateView(options).dbName}   # or set DATABASE_URL`)
  lines.push('  npm run db:migrate', '  npm run dev     # the agent on http://localhost:3000/a2a and /mcp', '  npm test')
  return `${lines.join('\n')}\n`
}

function initialMigrationCommand(options: ScaffoldOptions): string {
  const url = templateView(options).defaultUrl
  return `mkdir -p prisma/migrations/0001_init && DATABASE_URL=${url} npx prisma migrate diff --from-empty --to-schema-datamodel prisma --script > prisma/migrations/0001_init/migration.sql && printf 'provider = "${options.database}"\\n' > prisma/migrations/migration_lock.toml`
}

/** Why `directory` cannot be scaffolded into, or undefined when it is missing or empty. */
async function refuseTarget(directory: string, shown: string): Promise<string | undefined> {
  if (!existsSync(directory)) return undefined
  const entries = await readdir(directory).catch(() => undefined)
  if (!entries) return `${shown} exists and is not a folder; pick another name.`
  // A fresh `git init` or editor folder is harmless; anything else could be overwritten.
  const blocking = entries.filter((entry) => !['.git', '.DS_Store', '.idea', '.vscode'].includes(entry))
  if (blocking.length === 0) return undefined
  const listed = blocking.slice(0, 3).join(', ') + (blocking.length > 3 ? ', …' : '')
  return `${shown} is not empty (${listed}); nothing was written. Pick a new folder name, or empty this one first.`
}

/** npm package names are lowercase, without spaces. */
function packageName(directory: string): string {
  return basename(directory).toLowerCase().replace(/[^a-z0-9._~-]+/g, '-').replace(/^[._]+/, '') || 'a2a-agent'
}

/** Inside this repository: file: links to the local packages, so nothing needs publishing. */
function linkedVersions(directory: string): ScaffoldOptions['versions'] {
  const inRepo = existsSync(join(REPO_ROOT, 'packages', 'runtime', 'package.json')) && directory.startsWith(REPO_ROOT + sep)
  if (!inRepo) return { runtime: `^${VERSION}`, cli: `^${VERSION}` }
  const link = (folder: string) => `file:${relative(directory, join(REPO_ROOT, 'packages', folder)).split(sep).join('/')}`
  return { runtime: link('runtime'), cli: link('create-a2a-agent') }
}

// The generator's per-file report is noise in the scaffolder's progress; errors still show.
function quietIo(io: Io): Io {
  return { stdout: { write: () => true }, stderr: io.stderr }
}

/** A fresh P-256 private JWK that signs the app's agent card (the runtime derives its kid). */
function cardSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), alg: 'ES256' })
}
