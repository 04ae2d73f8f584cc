/**
 * `create-a2a-agent <dir>`: parse flags, ask what is left (in a terminal), write the app from
 * templates/app/, then install, generate, write the first migration and commit. `runCreate`
 * returns the exit code instead of exiting, so tests drive it in-process.
 * @module
 */
import { generateKeyPairSync } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import type { Io } from '../cli/io.js'
import { PACKAGE_ROOT, VERSION } from '../package-root.js'
import { formatUnexpectedError } from '../cli/io.js'
import { type Answers, defaultAnswers, promptAnswers, randomDevKeys, type ScaffoldOptions } from './options.js'
import { parseCreateArgs } from './args.js'
import { ensurePostgresDatabase } from './database.js'
import { type Commands, commandsFor, detectPackageManager } from './package-manager.js'
import { lineProgress, type Progress } from './progress.js'
import type { Prompter } from './prompts.js'
import { packageNameProblems, shellCommand, suggestPackageName } from './names.js'
import { packedPackages, vendoredVersions, vendorTarballs } from './vendor.js'
import { StepError, type Run, firstMigration, generateEntities, gitInit, install, run, seed } from './steps.js'
import { DATABASES, databaseOfUrl, renderApp, renderEnv, templateView } from './templates.js'

export interface CreateDeps {
  /** Folder the target is resolved against; default `process.cwd()`. */
  cwd?: string
  /** Asks in the terminal; absent (or with --yes) the defaults are taken. */
  prompter?: Prompter
  /** Shows the long steps; one line each by default. */
  progress?: Progress
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
  const cwd = deps.cwd ?? process.cwd()
  const prompter = flags.yes ? undefined : deps.prompter
  try {
    if (flags.directory === undefined && !prompter) {
      io.stderr.write('create-a2a-agent: name the folder to create, e.g. `create-a2a-agent my-agent` (it is asked for only in a terminal, without --yes).\n')
      return 1
    }
    const refuse = (answer: string) => refuseTarget(resolve(cwd, answer), answer) ?? refuseName(resolve(cwd, answer), answer)
    const shownTarget = flags.directory ?? (await prompter!.text({ message: 'Where should the agent go?', placeholder: 'my-agent', validate: (answer) => refuse(answer.trim()) }))
    const directory = resolve(cwd, shownTarget.trim())
    const refusal = refuse(shownTarget.trim())
    if (refusal) {
      io.stderr.write(`create-a2a-agent: ${refusal}\n`)
      return 1
    }
    const given: Answers = { database: flags.database, example: flags.example, install: flags.install }
    const answers = prompter ? await promptAnswers(given, prompter) : defaultAnswers(given)
    const packages = flags.packages === undefined ? undefined : await packedPackages(resolve(cwd, flags.packages))
    if (typeof packages === 'string') {
      io.stderr.write(`create-a2a-agent: --packages ${flags.packages}: ${packages}\n`)
      return 1
    }
    const options: ScaffoldOptions = {
      name: basename(directory),
      directory,
      ...answers,
      git: flags.git,
      multiAgent: flags.multiAgent,
      versions: packages ? vendoredVersions(packages) : linkedVersions(directory),
      ...(packages && { packages }),
      devKeys: randomDevKeys(),
      packageManager: detectPackageManager(),
      databaseUrl: '',
    }
    options.databaseUrl = databaseUrlFor(options)
    return await scaffold(options, io, deps.run ?? run, deps.progress ?? lineProgress(io))
  } catch (error) {
    // Ctrl+C or Ctrl+D at a prompt.
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

interface Step {
  label: string
  /** What a person types to do this step by hand, or nothing when it has no command of its own. */
  command?: string
  work: () => Promise<unknown>
}

/**
 * Makes sure the database exists (PostgreSQL), writes the app, then runs the long steps with a
 * line of progress each. On a failure the files stay, and "Next:" lists what is left, from the
 * step that failed.
 */
export async function scaffold(options: ScaffoldOptions, io: Io, runner: Run = run, progress: Progress = lineProgress(io)): Promise<number> {
  const { directory } = options
  const shown = relative(process.cwd(), directory) || '.'
  const commands = commandsFor(options.packageManager)
  const before: string[] = []
  if (options.database === 'postgresql') {
    // Without the install nothing touches the database yet: only look, and list the fix first.
    const database = await ensurePostgresDatabase(options.databaseUrl, { create: options.install })
    if (database.kind === 'unavailable' && options.install) {
      const fix = database.command ? `; run \`${database.command}\`, then create-a2a-agent again` : ''
      io.stderr.write(`create-a2a-agent: ${redact(options.databaseUrl)}: ${database.reason}${fix}. Nothing was written.\n`)
      return 1
    }
    if (database.kind === 'created') io.stdout.write(`Created the database ${redact(options.databaseUrl)}.\n`)
    if ((database.kind === 'missing' || database.kind === 'unavailable') && database.command) before.push(database.command)
  }
  const files = await renderApp(options)
  for (const [path, content] of files) {
    await mkdir(dirname(join(directory, path)), { recursive: true })
    await writeFile(join(directory, path), content)
  }
  if (options.packages) await vendorTarballs(options.packages, directory)
  // The app's own secrets, so never part of the rendered (deterministic) files: .env is git-ignored.
  await writeFile(join(directory, '.env'), await renderEnv(options, { devKeys: options.devKeys, cardSigningKey: cardSigningKey() }), { mode: 0o600 })
  io.stdout.write(`Created ${options.name} in ${shown} (${options.database}, ${options.example ? 'example notes entity' : 'empty'}): ${files.size} files.\n`)
  // The app's .env says the same; a DATABASE_URL of the other kind in this shell must not win.
  const env = { DATABASE_URL: options.databaseUrl }
  const migration = DATABASES[options.database].firstMigration
  const steps: Step[] = [
    { label: `Installing dependencies (${commands.install}, a minute or two)`, command: commands.install, work: () => install(directory, options.packageManager, runner) },
    { label: 'Generating entity tools (a2a generate entities)', command: commands.run('generate'), work: () => generateEntities(directory, quietIo(io)) },
    {
      label: migration.label,
      command: migration.commands.map((command) => commands.exec(command)).join(' && '),
      work: () => firstMigration(directory, options.database, env, quietIo(io), runner),
    },
    { label: `Adding the development users (${commands.run('db:seed')})`, command: commands.run('db:seed'), work: () => seed(directory, env, runner) },
  ]
  const todo = options.install ? steps : []
  const left = options.install ? [] : steps
  for (const [index, step] of todo.entries()) {
    try {
      await progress(step.label, step.work)
    } catch (error) {
      if (!(error instanceof StepError)) throw error
      io.stderr.write(`create-a2a-agent: ${error.message}\n`)
      const rest = todo.slice(index).flatMap((remaining) => (remaining.command ? [remaining.command] : []))
      io.stdout.write(`\nThe app's files are in ${shown}; fix the problem above, then finish by hand.\n${nextSteps(shown, [...before, ...rest], commands)}`)
      return 1
    }
  }
  if (options.git) {
    const committed = await progress('Creating a git repository with a first commit', () => gitInit(directory, runner))
    if (committed === 'inside') io.stdout.write('  (skipped: the folder is already inside a git repository)\n')
    else if (!committed) io.stdout.write('  (git init or the first commit did not succeed; commit by hand when ready)\n')
  }
  io.stdout.write(`\n${nextSteps(shown, [...before, ...left.flatMap((step) => (step.command ? [step.command] : []))], commands)}`)
  return 0
}

/** The commands to run next, printed last: what is left to do, then starting and testing the app. */
export function nextSteps(shown: string, left: readonly string[], commands: Commands): string {
  const lines = ['Next:', `  ${shellCommand('cd', shown)}`, ...left.map((command) => `  ${command}`)]
  lines.push(`  ${commands.run('dev')}     # the agent on http://localhost:3000/a2a and /mcp`, `  ${commands.test}`)
  return `${lines.join('\n')}\n`
}

/** A URL as printed: without its password. */
function redact(url: string): string {
  const parsed = new URL(url)
  if (parsed.password) parsed.password = '***'
  return parsed.href
}

/** Why `directory` cannot be scaffolded into, or undefined when it is missing or empty. */
function refuseTarget(directory: string, shown: string): string | undefined {
  if (!shown.trim()) return 'the folder name is empty; type one, e.g. my-agent'
  if (!existsSync(directory)) return undefined
  let entries: string[]
  try {
    entries = readdirSync(directory)
  } catch {
    return `${shown} exists and is not a folder; pick another name.`
  }
  // A fresh `git init` or editor folder is harmless; anything else could be overwritten.
  const blocking = entries.filter((entry) => !['.git', '.DS_Store', '.idea', '.vscode'].includes(entry))
  if (blocking.length === 0) return undefined
  const listed = blocking.slice(0, 3).join(', ') + (blocking.length > 3 ? ', …' : '')
  return `${shown} is not empty (${listed}); nothing was written. Pick a new folder name, or empty this one first.`
}

/** DATABASE_URL when it names a database of the chosen kind, else the app's default. */
function databaseUrlFor(options: ScaffoldOptions): string {
  const given = process.env.DATABASE_URL
  if (given && databaseOfUrl(given) === options.database) return given
  return templateView(options).defaultUrl
}

/**
 * Why the folder's name cannot be the app's package name (npm's rules), with a name that can; the
 * folder and the package keep one name, so neither is changed behind the user's back.
 */
function refuseName(directory: string, shown: string): string | undefined {
  const name = basename(directory)
  const problems = packageNameProblems(name)
  if (problems.length === 0) return undefined
  const suggestion = join(dirname(shown), suggestPackageName(name))
  return `${JSON.stringify(name)} cannot name the app, whose package.json takes the folder's name: ${problems.join('; ')}. Nothing was written. Try ${shellCommand(suggestion)} instead.`
}

/** Inside this repository: file: links to the local packages, so nothing needs publishing. */
function linkedVersions(directory: string): ScaffoldOptions['versions'] {
  const inRepo = existsSync(join(REPO_ROOT, 'packages', 'runtime', 'package.json')) && directory.startsWith(REPO_ROOT + sep)
  if (!inRepo) return { runtime: `^${VERSION}`, cli: `^${VERSION}` }
  const link = (folder: string) =>
    `file:${relative(directory, join(REPO_ROOT, 'packages', folder))
      .split(sep)
      .join('/')}`
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
