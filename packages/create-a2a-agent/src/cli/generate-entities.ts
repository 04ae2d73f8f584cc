/**
 * `a2a generate entities`: plan the entity code from the app's declarations and Prisma schema,
 * then write it (or preview it with --dry-run / --diff, or verify it with --check).
 * @module
 */
import { stat } from 'node:fs/promises'
import { relative, resolve } from 'node:path'
import type { Plan, PlanInput } from '@a2a-agent/generators'
// Only the light fast path is loaded up front; the planner (prettier, json-schema-to-typescript,
// handlebars, Prisma's wasm parser) is imported when a run has to plan.
import { GeneratorError, upToDateReport } from '@a2a-agent/generators/fast-path'
import { type Io, formatUnexpectedError, formatUserError, printLines } from './io.js'

export interface GenerateEntitiesOptions {
  /** App root, relative to `cwd`; default `.`. */
  app?: string
  /** Entity declarations, relative to the app root (or absolute); the planner's default when absent. */
  entities?: string
  /** Prisma schema file or folder, relative to the app root (or absolute); the planner's default when absent. */
  schema?: string
  dryRun?: boolean
  diff?: boolean
  check?: boolean
  force?: boolean
  /** Folder `app` is resolved against; default `process.cwd()`. */
  cwd?: string
}

/** The plan stage; injectable so tests can hand the command a plan without an app. */
export type Planner = (input: PlanInput) => Promise<Plan>

const MODE_FLAGS = { dryRun: '--dry-run', diff: '--diff', check: '--check' } as const

/** Returns the exit code: 0 done or up to date, 1 refused/stale/user error, 2 unexpected error. */
export async function runGenerateEntities(options: GenerateEntitiesOptions, io: Io, planner?: Planner): Promise<number> {
  const cwd = options.cwd ?? process.cwd()
  const modes = (Object.keys(MODE_FLAGS) as Array<keyof typeof MODE_FLAGS>).filter((key) => options[key])
  if (modes.length > 1) {
    io.stderr.write(`a2a: ${modes.map((key) => MODE_FLAGS[key]).join(' and ')} cannot be combined; pick one.\n`)
    return 1
  }
  const mode = modes[0] === 'dryRun' ? 'dry-run' : (modes[0] ?? 'write')
  const appRoot = resolve(cwd, options.app ?? '.')
  try {
    await assertFolder(appRoot, options.app ?? '.')
    const input: PlanInput = {
      appRoot,
      ...(options.entities !== undefined && { entitiesFile: appRelative(appRoot, options.entities) }),
      ...(options.schema !== undefined && { schemaPath: appRelative(appRoot, options.schema) }),
    }
    // Inputs unchanged since the manifest was written and every file intact: a full run would
    // change nothing, so say so without planning. --force always plans (it may replace hand edits).
    if (!options.force) {
      const upToDate = await upToDateReport(input, mode)
      if (upToDate) {
        printLines(io.stdout, upToDate)
        return 0
      }
    }
    const { applyPlan, exitCodeFor, formatReport, plan } = await import('@a2a-agent/generators')
    const planned = await (planner ?? plan)(input)
    const report = await applyPlan(appRoot, planned, { mode, force: options.force ?? false })
    printLines(io.stdout, formatReport(report))
    for (const error of report.errors) io.stderr.write(formatUserError(error, cwd))
    return exitCodeFor(report)
  } catch (error) {
    if (isGeneratorError(error)) {
      io.stderr.write(formatUserError(error, cwd))
      return 1
    }
    io.stderr.write(formatUnexpectedError(error))
    return 2
  }
}

// The planner joins these onto the app root (and names them that way in errors), so an absolute
// path is turned into a relative one first.
function appRelative(appRoot: string, path: string): string {
  return relative(appRoot, resolve(appRoot, path)) || '.'
}

async function assertFolder(path: string, shown: string): Promise<void> {
  const found = await stat(path).catch(() => undefined)
  if (!found?.isDirectory()) {
    throw new GeneratorError(`--app ${shown}: no such folder. Point --app at the app root (the folder with package.json).`)
  }
}

// By name too: a second copy of the generators package would break `instanceof`.
function isGeneratorError(error: unknown): error is GeneratorError {
  return error instanceof GeneratorError || (error instanceof Error && error.name === 'GeneratorError')
}
