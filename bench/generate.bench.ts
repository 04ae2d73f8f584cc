/**
 * `a2a generate entities` on a 50-model schema, against `prisma generate` on the same schema.
 * Goals: generating is not slower than `prisma generate`, and a no-op regeneration (nothing
 * changed) takes under 300 ms.
 *
 *   npm run bench                                   # runs the other benches, then this
 *   BENCH_GENERATE_RUNS=5 npm run bench:generate
 *
 * The app is built in bench/.tmp-generate-<pid> (inside the repository, so its entities file
 * resolves '@a2a-agent/runtime' from the workspace) and deleted afterwards: the schema is
 * /work/shared/research/schema50.prisma (BENCH_SCHEMA overrides) as prisma/schema.prisma, one
 * entity per model in src/entities.ts, a stub src/db.ts, and a prisma.config.ts with the SQLite
 * adapter so `prisma generate` runs offline.
 *
 * Measured, each BENCH_GENERATE_RUNS times (default 3, at least 3): the real CLI as a user runs it
 * (its bin, which starts the build in packages/create-a2a-agent/dist, built first if stale) in a
 * fresh process on an app with nothing generated (cold) and again with everything current (no-op),
 * the same no-op in examples/invoices (goal: at most 300 ms), and `a2a --help`; plan() + applyPlan() in this process for the same two cases,
 * and the no-op fast path (fingerprint + manifest check, what the CLI tries first) in this process;
 * `prisma generate` in a fresh process. Then where a no-op's time goes: its stages timed in a
 * fresh process (this file run with --stages), and, when the no-op misses its goal, one CLI run
 * under --cpu-prof. BENCH_TIMEOUT_SECONDS sets the watchdog (default 600); BENCH_KEEP_APP=1
 * leaves the app folder in place to look at.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Datamodel, DmmfModel } from '../generators/src/read/dmmf.js'
import { buildIfStale } from '../packages/create-a2a-agent/src/build/build.js'
import { positiveInt } from './load/env.js'

// The generator's modules are imported when first used, so the --stages child can time loading them.
const generators = () => import('@a2a-agent/generators')
const fastPath = () => import('@a2a-agent/generators/fast-path')
const reader = () => import('../generators/src/read/prisma-schema.js')
const validator = () => import('../generators/src/read/validate.js')

const root = fileURLToPath(new URL('..', import.meta.url))
const self = fileURLToPath(import.meta.url)
const cli = join(root, 'packages/create-a2a-agent/bin/a2a.js')
const prismaCli = join(root, 'node_modules/prisma/build/index.js')
const exampleApp = join(root, 'examples/invoices')
const schemaSource = process.env.BENCH_SCHEMA || '/work/shared/research/schema50.prisma'
const NOOP_GOAL_MS = 300

// Prisma reads the datasource url only for messages (the adapter in prisma.config.ts connects);
// without DATABASE_URL, Prisma 6 falls back to downloading engines. CHECKPOINT_DISABLE: no
// telemetry request inside the timing.
const childEnv = { ...process.env, DATABASE_URL: 'file:./dev.db', CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1', NO_COLOR: '1' }

/** Runs a command in `cwd` to completion and checks its output; wall time in ms, spawn to exit. */
function timed(cwd: string, args: string[], expect: RegExp, label: string, env: NodeJS.ProcessEnv = childEnv): { ms: number; stdout: string } {
  const started = performance.now()
  const result = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 120_000 })
  const ms = performance.now() - started
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
  if (result.status !== 0 || !expect.test(output)) {
    throw new Error(`${label}: exit ${result.status ?? result.signal}, expected output matching ${expect}:\n${output.slice(0, 2000)}`)
  }
  return { ms, stdout: result.stdout }
}

// ---------------------------------------------------------------------------------------------
// The app

const USER_LIKE = /^(user|owner|account|member)$/i
const KEY_TYPES = ['String', 'Int']

/**
 * The owner field of a model: the key of its relation to a user-like model, else its first non-id
 * String scalar (the user model itself owns rows by its own columns), else none.
 */
function ownerOf(model: DmmfModel): string | undefined {
  const scalar = (name: string) => model.fields.find((field) => field.name === name && field.kind === 'scalar' && !field.isList)
  for (const relation of model.fields) {
    if (relation.kind !== 'object' || !USER_LIKE.test(relation.type) || relation.relationFromFields?.length !== 1) continue
    const key = scalar(relation.relationFromFields[0]!)
    if (key && KEY_TYPES.includes(key.type)) return key.name
  }
  return model.fields.find((field) => field.kind === 'scalar' && !field.isList && !field.isId && field.type === 'String')?.name
}

/** `Category` → categories, `Address` → addresses, `OrderLine` → orderLines. */
function entityName(model: string): string {
  const camel = model.charAt(0).toLowerCase() + model.slice(1)
  if (/[^aeiou]y$/.test(camel)) return `${camel.slice(0, -1)}ies`
  if (/(s|x|z|ch|sh)$/.test(camel)) return `${camel}es`
  return `${camel}s`
}

interface Declared {
  models: number
  entities: number
  withTools: number
  /** Models left out, with the validator's reason. */
  dropped: string[]
}

async function writeApp(app: string): Promise<Declared> {
  rmSync(app, { recursive: true, force: true })
  mkdirSync(join(app, 'prisma'), { recursive: true })
  mkdirSync(join(app, 'src'), { recursive: true })
  // The client goes to src/generated, outside prisma/: a2a reads every .prisma file under prisma/.
  const schema = readFileSync(schemaSource, 'utf8').replace(/^(\s*output\s*=\s*)"[^"]*"/m, '$1"../src/generated/prisma"')
  if (!/provider\s*=\s*"sqlite"/.test(schema)) throw new Error(`${schemaSource}: this bench configures the SQLite adapter, but the datasource is not sqlite`)
  writeFileSync(join(app, 'prisma/schema.prisma'), schema)
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'generate-bench-app', private: true, type: 'module' }, null, 2)}\n`)
  // Type-checking the generated code is not part of this bench; Db only has to exist.
  writeFileSync(join(app, 'src/db.ts'), 'export type Db = any\n\nexport function createDb(): Db {\n  return {}\n}\n')
  writeFileSync(
    join(app, 'prisma.config.ts'),
    [
      "import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'",
      "import { defineConfig } from 'prisma/config'",
      '',
      '// The wasm schema engine through a driver adapter: no engine download (as in examples/invoices).',
      'export default defineConfig({',
      '  experimental: { adapter: true },',
      "  engine: 'js',",
      "  schema: 'prisma',",
      "  adapter: async () => new PrismaBetterSQLite3({ url: process.env.DATABASE_URL ?? 'file:./dev.db' }),",
      '})',
      '',
    ].join('\n'),
  )
  timed(app, [prismaCli, 'validate'], /is valid/, 'prisma validate')

  const { datamodel } = await (await reader()).readPrismaSchema(app, 'prisma')
  const declarations: Record<string, Record<string, string | boolean>> = {}
  const dropped: string[] = []
  for (const model of datamodel.models) {
    const owner = ownerOf(model)
    const declaration: Record<string, string | boolean> = owner ? { model: model.name, ownerField: owner } : { model: model.name, mcp: false }
    const name = entityName(model.name)
    // One at a time, so a model that does not fit is left out with its reason instead of failing all.
    const problem = await check({ [name]: declaration }, datamodel)
    if (problem) dropped.push(`${model.name}: ${problem}`)
    else declarations[name] = declaration
  }
  const together = await check(declarations, datamodel)
  if (together) throw new Error(`the declarations do not validate together: ${together}`)
  const body = Object.entries(declarations).map(([name, declaration]) => {
    const options = Object.entries(declaration).map(([key, value]) => `${key}: ${typeof value === 'string' ? `'${value}'` : String(value)}`)
    return `  ${name}: { ${options.join(', ')} },`
  })
  writeFileSync(join(app, 'src/entities.ts'), ["import { defineEntities } from '@a2a-agent/runtime/entities'", '', 'export default defineEntities({', ...body, '})', ''].join('\n'))
  return {
    models: datamodel.models.length,
    entities: Object.keys(declarations).length,
    withTools: Object.values(declarations).filter((declaration) => declaration.mcp !== false).length,
    dropped,
  }
}

async function check(declarations: object, datamodel: Datamodel): Promise<string | undefined> {
  try {
    ;(await validator()).validateEntities(declarations, datamodel, 'src/entities.ts')
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message.split('\n').slice(1).join(' ').trim() || error.message : String(error)
  }
}

/** Everything `a2a generate entities` writes, so the next run starts cold. */
function resetGenerated(app: string): void {
  for (const path of ['src/a2a', 'test', '.a2a', 'prisma/a2a.prisma']) rmSync(join(app, path), { recursive: true, force: true })
}

// ---------------------------------------------------------------------------------------------
// In this process

async function inProcess(app: string): Promise<{ ms: number; upToDate: boolean; files: number }> {
  const { applyPlan, isUpToDate, plan } = await generators()
  const started = performance.now()
  const planned = await plan({ appRoot: app })
  const report = await applyPlan(app, planned, { mode: 'write' })
  const ms = performance.now() - started
  if (report.errors.length > 0) throw new Error(`applyPlan refused: ${report.errors.map((error) => error.message).join('\n')}`)
  return { ms, upToDate: isUpToDate(report), files: planned.files.length }
}

// ---------------------------------------------------------------------------------------------
// The --stages child: one no-op run in a fresh process, stage by stage

type Stages = [string, number][]

/**
 * The stages of plan() + applyPlan() one after the other (plan() overlaps the two reads), with
 * the loading of the generator's modules as a stage of its own. Prints them as JSON.
 */
async function stagesChild(app: string): Promise<void> {
  const out: Stages = [['node start, tsx loader, this script', performance.now()]]
  const stage = async <T>(name: string, work: () => Promise<T> | T): Promise<T> => {
    const started = performance.now()
    const value = await work()
    out.push([name, performance.now() - started])
    return value
  }
  const modules = await stage('import the generator (jstt, prettier, handlebars, wasm)', async () => ({
    ...(await generators()),
    ...(await import('../generators/src/read/declarations.js')),
    ...(await reader()),
    ...(await validator()),
    ...(await import('../generators/src/plan/plan.js')),
  }))
  const declarations = await stage('import src/entities.ts (tsx tsImport)', () => modules.loadDeclarations(app, 'src/entities.ts'))
  const schema = await stage('read + parse the schema (wasm get_datamodel)', () => modules.readPrismaSchema(app, 'prisma'))
  const entities = await stage('validate', () => modules.validateEntities(declarations, schema.datamodel, 'src/entities.ts'))
  const planned = await stage('plan files (templates, json-schema-to-typescript)', () => modules.planFrom(entities))
  // --check reads, hashes and compares like a write run, but leaves the manifest's fingerprint
  // alone (planFrom() records none), so the CLI runs after this one can still take the fast path.
  const report = await stage('applyPlan (read, hash, compare)', () => modules.applyPlan(app, planned, { mode: 'check' }))
  if (!modules.isUpToDate(report)) throw new Error('the staged no-op run found changes')
  console.log(JSON.stringify(out))
}

// ---------------------------------------------------------------------------------------------
// Profile of a no-op CLI run

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/**
 * One no-op CLI run under --cpu-prof: self time by package and by function, per thread (tsx's
 * module hooks run on a loader thread of their own; the main thread idles while it compiles).
 */
function profileNoop(app: string): { wallMs: number; threads: { name: string; byPackage: Stages; byFunction: Stages }[] } {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-generate-prof-'))
  try {
    const { ms } = timed(app, ['--cpu-prof', `--cpu-prof-dir=${dir}`, cli, 'generate', 'entities'], /Nothing to do/, 'profiled no-op run')
    // Node names them CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main one.
    const files = readdirSync(dir)
      .filter((name) => name.endsWith('.cpuprofile'))
      .sort()
    const threads = files.map((file, index) => {
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
      return { name: index === 0 ? 'main thread' : `thread ${index} (module loader hooks, tsx)`, ...selfTimes(profile) }
    })
    return { wallMs: ms, threads }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function selfTimes(profile: Profile): { byPackage: Stages; byFunction: Stages } {
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000))
  const byPackage = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0
    if (ms === 0) continue
    const { functionName, lineNumber } = node.callFrame
    // tsx adds ?tsx-namespace=… to what tsImport loads.
    const url = node.callFrame.url.replace(/\?.*$/, '')
    const where = packageOf(url, functionName)
    byPackage.set(where, (byPackage.get(where) ?? 0) + ms)
    const shortUrl = url.startsWith('wasm://') ? 'prisma-schema-wasm' : url.replace(/^file:\/\//, '').replace(root, '')
    const name = url ? `${functionName || '(anonymous)'} ${shortUrl}:${lineNumber + 1}` : functionName
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms)
  }
  const top = (map: Map<string, number>, n: number): Stages => [...map].sort((a, b) => b[1] - a[1]).slice(0, n)
  return { byPackage: top(byPackage, 10), byFunction: top(byFunction, 10) }
}

/** `node_modules/<pkg>` (scoped too), a workspace folder, node internals, wasm, or the VM itself. */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName === '(idle)' ? '(idle)' : '(VM: gc, compile, native)'
  if (url.startsWith('node:')) return 'node internals (module loading, fs)'
  if (url.startsWith('wasm://')) return 'prisma-schema-wasm (wasm code)'
  const path = url.replace(/^file:\/\//, '')
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)
  if (module) return module[1]!
  if (path.startsWith(root)) return path.slice(root.length).split('/').slice(0, 3).join('/')
  return path
}

// ---------------------------------------------------------------------------------------------
// Report

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`)

function printTable(rows: { label: string; samples: number[] }[]): void {
  const cells = rows.map((row) => [row.label, fmt(median(row.samples)), fmt(Math.min(...row.samples)), row.samples.map((ms) => ms.toFixed(0)).join(', ')])
  const head = ['measure', 'median', 'min', 'runs (ms, in order)']
  const widths = head.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)))
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 1 || i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  console.log(line(head))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const row of cells) console.log(line(row))
}

function printList(rows: Stages, indent = '  '): void {
  const width = Math.max(...rows.map(([name]) => name.length))
  for (const [name, ms] of rows) console.log(`${indent}${name.padEnd(width)}  ${fmt(ms).padStart(7)}`)
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const runs = Math.max(3, positiveInt('BENCH_GENERATE_RUNS', 3))
  const app = join(root, 'bench', `.tmp-generate-${process.pid}`)
  const cleanUp = () => {
    if (!process.env.BENCH_KEEP_APP) rmSync(app, { recursive: true, force: true })
  }
  process.once('exit', cleanUp)
  const budgetMs = Number(process.env.BENCH_TIMEOUT_SECONDS || 0) * 1000 || 600_000
  const watchdog = setTimeout(() => {
    console.error(`generate bench exceeded its ${(budgetMs / 1000).toFixed(0)} s budget`)
    process.exit(1)
  }, budgetMs)
  watchdog.unref()

  try {
    const declared = await writeApp(app)
    console.log(
      `generate: ${schemaSource}: ${declared.models} models, ${declared.entities} entities declared (${declared.withTools} with tools)` +
        (declared.dropped.length ? `; left out ${declared.dropped.length}: ${declared.dropped.join(' | ')}` : ''),
    )

    // The bin would build on its first run; that is not what a run costs.
    if (await buildIfStale()) console.log('built packages/create-a2a-agent/dist (it was stale)')
    const cliArgs = [cli, 'generate', 'entities', '--app', '.']
    const coldCli: number[] = []
    const noopCli: number[] = []
    const helpCli: number[] = []
    // The same no-op on a real app of ordinary size, whose generated files are committed current.
    const noopExample: number[] = []
    const prismaGenerate: number[] = []
    // Interleaved, so a busy moment of the machine weighs on both sides of the comparison.
    for (let i = 0; i < runs; i++) {
      resetGenerated(app)
      coldCli.push(timed(app, cliArgs, /Done: \d+ created/, 'cold CLI run').ms)
      noopCli.push(timed(app, cliArgs, /Nothing to do/, 'no-op CLI run').ms)
      helpCli.push(timed(app, [cli, '--help'], /Usage: a2a/, 'a2a --help').ms)
      noopExample.push(timed(exampleApp, [cli, 'generate', 'entities'], /Nothing to do/, 'no-op CLI run in examples/invoices').ms)
      // The schema as the app now has it: its own models plus a2a's prisma/a2a.prisma.
      rmSync(join(app, 'src/generated'), { recursive: true, force: true })
      prismaGenerate.push(timed(app, [prismaCli, 'generate'], /Generated Prisma Client/, 'prisma generate').ms)
    }

    const coldIn: number[] = []
    const noopIn: number[] = []
    let files = 0
    for (let i = 0; i < runs; i++) {
      resetGenerated(app)
      const cold = await inProcess(app)
      if (cold.upToDate) throw new Error('the cold in-process run found nothing to do')
      coldIn.push(cold.ms)
      files = cold.files
      const noop = await inProcess(app)
      if (!noop.upToDate) throw new Error('the no-op in-process run changed files')
      noopIn.push(noop.ms)
    }

    // What the CLI runs first on a no-op: fingerprint + manifest check, no planning.
    const fastIn: number[] = []
    for (let i = 0; i < runs; i++) {
      const { upToDateReport } = await fastPath()
      const started = performance.now()
      const lines = await upToDateReport({ appRoot: app }, 'write')
      fastIn.push(performance.now() - started)
      if (!lines?.[0]?.startsWith('Nothing to do')) throw new Error('the no-op fast path was not taken')
    }

    const stageRuns: Stages[] = []
    for (let i = 0; i < runs; i++) {
      const { stdout } = timed(app, ['--import', 'tsx', self, '--stages', app], /^\[/, 'staged no-op run')
      stageRuns.push(JSON.parse(stdout) as Stages)
    }

    console.log()
    console.log(`a2a generate entities vs prisma generate (Node ${process.version}, ${declared.entities} entities, ${files} planned files, ${runs} runs each)`)
    printTable([
      { label: '(a) a2a generate entities, cold (fresh CLI process)', samples: coldCli },
      { label: '(b) plan() + applyPlan(), cold (in-process)', samples: coldIn },
      { label: '(c) no-op regeneration (fresh CLI process)', samples: noopCli },
      { label: '    same, in examples/invoices (fresh CLI process)', samples: noopExample },
      { label: '(c) no-op regeneration, fast path (in-process)', samples: fastIn },
      { label: '    same, full plan() + applyPlan() (in-process)', samples: noopIn },
      { label: '(d) prisma generate (fresh process)', samples: prismaGenerate },
      { label: '(e) a2a --help (fresh CLI process)', samples: helpCli },
    ])
    console.log()
    console.log(`a no-op run in a fresh process, stage by stage (median of ${runs}):`)
    const stageNames = stageRuns[0]!.map(([name]) => name)
    const stageMedians: Stages = stageNames.map((name, i) => [name, median(stageRuns.map((run) => run[i]![1]))])
    printList([...stageMedians, ['total', stageMedians.reduce((sum, [, ms]) => sum + ms, 0)]])

    const faster = median(coldCli) <= median(prismaGenerate)
    const noopProcess = median(noopCli) < NOOP_GOAL_MS
    const noopExampleMet = median(noopExample) <= NOOP_GOAL_MS
    const noopInProcess = median(fastIn) < NOOP_GOAL_MS
    console.log()
    console.log(
      `goal (generation not slower than prisma generate): ${faster ? 'MET' : 'NOT MET'}, CLI ${fmt(median(coldCli))} vs prisma generate ${fmt(median(prismaGenerate))} (medians; in-process ${fmt(median(coldIn))})`,
    )
    console.log(
      `goal (no-op under ${NOOP_GOAL_MS} ms): fresh CLI process ${noopProcess ? 'MET' : 'NOT MET'} (${fmt(median(noopCli))}), in-process ${noopInProcess ? 'MET' : 'NOT MET'} (${fmt(median(fastIn))}; planning anyway ${fmt(median(noopIn))})`,
    )
    console.log(
      `goal (a no-op \`a2a generate entities\` in examples/invoices from a fresh process ≤ ${NOOP_GOAL_MS} ms): ${noopExampleMet ? 'MET' : 'NOT MET'} (median ${fmt(median(noopExample))} of ${runs}; \`a2a --help\` ${fmt(median(helpCli))}; load average ${loadavg()[0]!.toFixed(1)})`,
    )
    if (!noopProcess) {
      const profile = profileNoop(app)
      console.log()
      console.log(`where a no-op CLI run spends its time (--cpu-prof self time; that run took ${fmt(profile.wallMs)}):`)
      for (const thread of profile.threads) {
        console.log(` ${thread.name}, by package:`)
        printList(thread.byPackage)
        console.log(` ${thread.name}, by function:`)
        printList(thread.byFunction)
      }
    }
  } finally {
    clearTimeout(watchdog)
    cleanUp()
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

const [mode, stagesApp] = process.argv.slice(2)
const run = mode === '--stages' && stagesApp ? stagesChild(stagesApp) : main()
run.catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})
