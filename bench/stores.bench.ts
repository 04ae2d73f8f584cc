/**
 * SendMessage and GetTask rate per store: our exchange on MemoryStore, on PrismaStore over SQLite
 * (a fresh temporary file, WAL) and over PostgreSQL (a fresh database), on SqliteStore over SQLite
 * (`sqlite-direct`: its own better-sqlite3 connection to another fresh file), on PostgresStore
 * (`postgres-direct`: its own node-postgres pool, on the same database as `postgres`), beside the
 * official SDK server (in-memory), and on MariaDB PrismaStore (`mysql`, @prisma/adapter-mariadb) and MysqlStore
 * (`mysql-direct`: its own mariadb pool). Beside each database store the SDK server keeps its tasks in
 * its own DatabaseTaskStore on the same database (`sdk-sqlite` on the sqlite-direct file,
 * `sdk-postgres`, `sdk-mysql`; Kysely with pg, better-sqlite3 and mysql2, its tables made by its
 * own `a2a-db upgrade`), and each of ours is printed as a multiple of it (goal ≥ 5×). `postgres-app` is PostgresStore as generated apps run it: the
 * exchange's default run cap (16 runs per owner, counted for the whole agent in the database),
 * with SendMessage spread over BENCH_APP_OWNERS owners (default 64) so that no send meets the cap;
 * its row, beside postgres-direct's (uncapped, one owner), is what that count costs per send. Goals, on the stores generated apps run
 * (SqliteStore, PostgresStore): SQLite and PostgreSQL SendMessage at least the SDK server's
 * in-memory rate, PostgreSQL GetTask 1.5× it; PrismaStore's rates are printed beside them.
 *
 *   npm run bench                                  # runs the other benches, then this
 *   BENCH_SECONDS=5 npm run bench:stores
 *
 * One server process at a time (bench/servers/store-server.ts, bench/servers/sdk.ts), loaded by
 * wrk: SendMessage with a fresh messageId per request, then GetTask round-robin over
 * BENCH_TASK_IDS (default 64: the exchange's default settled-task retention per owner, so none
 * is trimmed) completed tasks created just before. A 200 that is not a COMPLETED
 * task counts as an error. The table shows server CPU per request, for the PostgreSQL stores the
 * CPU of the database's backends per request (they share the cores), and, for the servers that count
 * their statements (Prisma's adapter, PostgresStore's pg clients), statements per request; the
 * load average is printed with it, the machine being shared. Then a SQLite server runs BENCH_PROFILE_SECONDS (default 3) of
 * SendMessage under --cpu-prof (samples outside the loaded window left out), and the self time is
 * printed by package and by function, with the SQL statements per SendMessage (counted by the
 * server's adapter wrapper, read from its /bench/queries).
 *
 * Other knobs: BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS, BENCH_APP_OWNERS, BENCH_STORES (comma list of memory,
 * sqlite, sqlite-direct, postgres, postgres-direct, postgres-app, mysql, mysql-direct, sdk, sdk-sqlite, sdk-postgres, sdk-mysql; a kind listed again is measured
 * again, and each store's ratio is the median of its rows paired in order with the SDK's: e.g.
 * BENCH_STORES=sdk,postgres-direct,postgres-direct,sdk,sdk,postgres-direct for three pairs), BENCH_PG_URL (default postgresql://root@127.0.0.1:5432/postgres; the
 * bench creates a2a_bench_<pid> there and drops it), BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/mysql; the same), BENCH_PUSH_OUTBOX=1 (mysql-direct
 * with a MysqlPushOutbox started on its database: its writes with events write outbox rows too), BENCH_SERVER_ARGS (extra node flags for every
 * server), BENCH_PROFILE=0 (skip the profile), BENCH_PROFILE_STORE=sqlite-direct or postgres-direct (profile SqliteStore or PostgresStore
 * instead; BENCH_PROFILE_METHOD=GetTask profiles GetTask over the task ids instead of SendMessage; its statements are not counted, Prisma's adapter being where they are). Temporary files, the database and the servers are
 * removed on every exit: success, error, SIGINT/SIGTERM, the watchdog.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { execFileSync } from 'node:child_process'
import Database from 'better-sqlite3'
import mariadb from 'mariadb'
import pg from 'pg'
import { countBadResponses, killWrk, runWrkScriptAsync, wrkAvailable, type WrkResult } from './load/wrk.js'
import { BENCH_TOKEN } from './servers/shared.js'
import { cpuMs, positiveInt } from './load/env.js'
import { runtimeFrom, spawnServer, stopProcess } from './load/server-process.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const seconds = positiveInt('BENCH_SECONDS', 10)
const warmupSeconds = positiveInt('BENCH_WARMUP_SECONDS', 2)
const connections = positiveInt('BENCH_CONNECTIONS', 32)
const taskIdCount = positiveInt('BENCH_TASK_IDS', 64)
const profileSeconds = positiveInt('BENCH_PROFILE_SECONDS', 3)
const profiling = process.env.BENCH_PROFILE !== '0'
const profiledKinds = ['sqlite', 'sqlite-direct', 'postgres-direct', 'mysql-direct'] as const
const profiled = profiledKinds.find((kind) => kind === process.env.BENCH_PROFILE_STORE) ?? 'sqlite'
const profiledMethod: Method = process.env.BENCH_PROFILE_METHOD === 'GetTask' ? 'GetTask' : 'SendMessage'
const pgServer = new URL(process.env.BENCH_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres')
const mysqlServer = new URL(process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql')
const storeKinds = [
  'memory',
  'sqlite',
  'sqlite-direct',
  'postgres',
  'postgres-direct',
  'postgres-app',
  'mysql',
  'mysql-direct',
  'sdk',
  'sdk-sqlite',
  'sdk-postgres',
  'sdk-mysql',
] as const
const appOwners = positiveInt('BENCH_APP_OWNERS', 64)
type Kind = (typeof storeKinds)[number]
const selected: Kind[] = (process.env.BENCH_STORES ?? storeKinds.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name): name is Kind => {
    if ((storeKinds as readonly string[]).includes(name)) return true
    throw new Error(`BENCH_STORES: unknown store ${JSON.stringify(name)} (expected ${storeKinds.join(', ')})`)
  })
const schemaFile = (provider: 'sqlite' | 'postgres' | 'mysql') =>
  fileURLToPath(new URL(`../packages/runtime/src/store/prisma/__fixture__/${provider}/generated/schema.sql`, import.meta.url))

/** wrk's per-request timeout: a slow store queues requests for seconds; its latency is measured, not cut off at wrk's 2 s. */
const WRK_TIMEOUT = 10

const headers = {
  'Content-Type': 'application/json',
  'A2A-Version': '1.0',
  Authorization: `Bearer ${BENCH_TOKEN}`,
}

// ---------------------------------------------------------------------------------------------
// Resources, and their cleanup on every exit path

const tempDir = mkdtempSync(join(tmpdir(), 'a2a-bench-stores-'))
const pgDatabase = `a2a_bench_${process.pid}`
let pgCreated = false
let mysqlCreated = false
const mysqlConnection = {
  host: mysqlServer.hostname,
  port: Number(mysqlServer.port || 3306),
  user: decodeURIComponent(mysqlServer.username),
  password: decodeURIComponent(mysqlServer.password),
}
const children = new Set<ChildProcess>()

const pgUrl = (database: string) => {
  const url = new URL(pgServer.href)
  url.pathname = `/${database}`
  return url.href
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgServer.href, connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

let cleaned: Promise<void> | undefined
/** Kills what is left of the servers, removes the temporary folder and drops the database. */
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    killWrk()
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(tempDir, { recursive: true, force: true })
    if (pgCreated) {
      const drop = withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${pgDatabase}" WITH (FORCE)`))
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), 10_000).unref())
      await Promise.race([drop, timeout])
        .then(() => {
          pgCreated = false
        })
        .catch((error: unknown) => console.error(`could not drop database ${pgDatabase}: ${error instanceof Error ? error.message : error}`))
    }
    if (mysqlCreated) {
      await withMysqlAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS \`${pgDatabase}\``))
        .then(() => {
          mysqlCreated = false
        })
        .catch((error: unknown) => console.error(`could not drop MySQL database ${pgDatabase}: ${error instanceof Error ? error.message : error}`))
    }
  })()
  return cleaned
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: cleaning up`)
    void cleanup().finally(() => process.exit(130))
  })
}

// ---------------------------------------------------------------------------------------------
// Databases

function createSqlite(name: string): string {
  const file = join(tempDir, name)
  const db = new Database(file)
  try {
    db.exec(readFileSync(schemaFile('sqlite'), 'utf8'))
  } finally {
    db.close()
  }
  return `file:${file}`
}

async function createPostgres(): Promise<string> {
  await withAdmin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${pgDatabase}" WITH (FORCE)`)
    await client.query(`CREATE DATABASE "${pgDatabase}"`)
    pgCreated = true
  }).catch((error: Error) => {
    throw new Error(`PostgreSQL at ${pgServer.host} is not usable (${error.message}); start it or set BENCH_PG_URL, or leave postgres out of BENCH_STORES`)
  })
  const setup = new pg.Client({ connectionString: pgUrl(pgDatabase) })
  await setup.connect()
  try {
    await setup.query(readFileSync(schemaFile('postgres'), 'utf8'))
  } finally {
    await setup.end()
  }
  return pgUrl(pgDatabase)
}

async function withMysqlAdmin<T>(work: (admin: mariadb.Connection) => Promise<T>): Promise<T> {
  const admin = await mariadb.createConnection({ ...mysqlConnection, multipleStatements: true, connectTimeout: 5000 })
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}

/** The bench database on MariaDB (named as the PostgreSQL one), with the runtime's MySQL schema. */
async function createMysql(): Promise<string> {
  await withMysqlAdmin(async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS \`${pgDatabase}\``)
    await admin.query(`CREATE DATABASE \`${pgDatabase}\``)
    mysqlCreated = true
    await admin.query(`USE \`${pgDatabase}\`; ${readFileSync(schemaFile('mysql'), 'utf8')}`)
  }).catch((error: Error) => {
    throw new Error(`MySQL/MariaDB at ${mysqlServer.host} is not usable (${error.message}); start it or set BENCH_MYSQL_URL, or leave mysql out of BENCH_STORES`)
  })
  const url = new URL(mysqlServer.href)
  url.pathname = `/${pgDatabase}`
  return url.href
}

/**
 * The SDK's tables, made by its own migration command (`a2a-db upgrade`), in the database at `url`.
 * On MariaDB its MySQL script is rendered (`--sql --dialect mysql`) and applied with MySQL 8's
 * utf8mb4_0900_bin collation as MariaDB names it (utf8mb4_bin): run against the URL it fails there.
 */
async function sdkMigrate(url: string): Promise<void> {
  const cli = join(root, 'node_modules/@a2a-js/sdk/dist/cli/a2a_db.js')
  if (!url.startsWith('mysql://')) {
    execFileSync(process.execPath, [cli, 'upgrade', '--url', url], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
    return
  }
  const script = execFileSync(process.execPath, [cli, 'upgrade', '--sql', '--dialect', 'mysql'], { cwd: root, encoding: 'utf8' })
  await withMysqlAdmin((admin) => admin.query(`USE \`${pgDatabase}\`; ${script.replaceAll('utf8mb4_0900_bin', 'utf8mb4_bin')}`))
}

// ---------------------------------------------------------------------------------------------
// Servers

interface Target {
  name: string
  child: ChildProcess
  endpoint: string
}

/** Spawns `bench/servers/<file>` and waits until it listens; every exit path stops it. */
async function startServer(name: string, file: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Target> {
  const { child, port } = await spawnServer(name, fileURLToPath(new URL(`./servers/${file}`, import.meta.url)), { cwd: root, env, nodeArgs })
  children.add(child)
  child.once('exit', () => children.delete(child))
  return { name, child, endpoint: `http://127.0.0.1:${port}/a2a` }
}

const stopServer = (target: Target, graceMs?: number): Promise<void> => stopProcess(target.child, graceMs)

// ---------------------------------------------------------------------------------------------
// Requests

const runId = `${process.pid}-${Date.now()}`
let counter = 0

async function rpc(target: Target, method: string, params: unknown): Promise<{ status: number; text: string; body: unknown }> {
  const response = await fetch(target.endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++counter, method, params }),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    // Reported by the caller with the raw text.
  }
  return { status: response.status, text, body }
}

type Json = { result?: { task?: { id?: string; status?: { state?: string } }; id?: string; status?: { state?: string } } } | undefined

/** One SendMessage that must complete; its task id. */
async function sendOne(target: Target): Promise<string> {
  const { status, text, body } = await rpc(target, 'SendMessage', {
    message: { messageId: `setup-${runId}-${++counter}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
  })
  const task = (body as Json)?.result?.task
  if (status !== 200 || task?.status?.state !== 'TASK_STATE_COMPLETED' || typeof task.id !== 'string') {
    throw new Error(`${target.name} did not answer SendMessage with a COMPLETED task: HTTP ${status} ${text.slice(0, 500)}`)
  }
  return task.id
}

/** GetTask must answer the task itself, completed. */
async function getOne(target: Target, id: string): Promise<void> {
  const { status, text, body } = await rpc(target, 'GetTask', { id })
  const task = (body as Json)?.result
  if (status !== 200 || task?.id !== id || task.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(`${target.name} did not answer GetTask with the COMPLETED task ${id}: HTTP ${status} ${text.slice(0, 500)}`)
  }
}

const lua = (value: string) => JSON.stringify(value)

/**
 * wrk script: `body(n)` is a Lua expression of the request counter `n`; a response counts as bad
 * unless it is a 200 holding a COMPLETED task and no JSON-RPC error.
 */
function wrkScript(body: string, prelude = ''): string {
  const headerLines = Object.entries(headers).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)
  return `
wrk.method = "POST"
${headerLines.join('\n')}
${prelude}
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, ${body})
end
${countBadResponses(`status ~= 200 or not string.find(body, '"TASK_STATE_COMPLETED"', 1, true) or string.find(body, '"error":', 1, true)`)}
`
}

let wrkRun = 0
/** SendMessage with a messageId unique to this wrk run and request; with `owners`, each request as the next of that many owners. */
function sendScript(owners?: number): string {
  const prefix = `wrk-${runId}-${++wrkRun}-`
  const body = `'{"jsonrpc":"2.0","id":' .. n .. ',"method":"SendMessage","params":{"message":{"messageId":"${prefix}' .. n .. '","role":"ROLE_USER","parts":[{"text":"hello"}]}}}'`
  if (!owners) return wrkScript(body)
  // wrk.format reads wrk.headers when given none: set per request, before the body is formatted.
  return wrkScript(`(function() wrk.headers["Authorization"] = ${lua(`Bearer ${BENCH_TOKEN}.`)} .. (n % ${owners}); return ${body} end)()`)
}

/** GetTask over `ids`, round-robin. */
function getScript(ids: string[]): string {
  const list = `local ids = { ${ids.map(lua).join(', ')} }`
  return wrkScript(`'{"jsonrpc":"2.0","id":' .. n .. ',"method":"GetTask","params":{"id":"' .. ids[(n % #ids) + 1] .. '"}}'`, list)
}

// ---------------------------------------------------------------------------------------------
// Measuring

type Method = 'SendMessage' | 'GetTask'

interface Row extends WrkResult {
  name: string
  method: Method
  /** Server CPU per request; steadier than req/s when neighbours share the cores. */
  cpuUsPerRequest: number | undefined
  /** SQL statements (round trips) per request, where the server counts them (not memory, sqlite-direct, sdk). */
  statementsPerRequest: number | undefined
  /** CPU of the PostgreSQL backends serving the bench database per request: the other half of a PostgreSQL store's cost on these cores. */
  dbCpuUsPerRequest: number | undefined
}

/** Servers whose /bench/queries counts their statements. */
const countsStatements = (target: Target) => /^ours (sqlite|postgres|postgres-direct|postgres-app|mysql|mysql-direct)$/.test(target.name)

const sentStatements = async (target: Target) => Object.values(await statementCounts(target)).reduce((sum, count) => sum + count, 0)

/**
 * Waits (up to 15 s) until the server's CPU use stops: wrk drops its connections at the end of a
 * run, but a slow server still finishes the requests it took, and that work must not land in the
 * next measured window.
 */
async function settle(target: Target): Promise<void> {
  const deadline = Date.now() + 15_000
  let last = cpuMs(target.child.pid)
  while (last !== undefined && Date.now() < deadline) {
    await sleep(250)
    const now = cpuMs(target.child.pid)
    if (now === undefined || now - last < 20) return
    last = now
  }
}

const usesPostgres = (target: Target) => /^(ours|sdk) postgres/.test(target.name)

/** CPU ms of the PostgreSQL backends connected to the bench database now (read from /proc: the server is local). */
async function databaseCpuMs(): Promise<Map<number, number>> {
  const { rows } = await withAdmin((client) => client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [pgDatabase]))
  return new Map(
    rows.flatMap(({ pid }) => {
      const ms = cpuMs(pid)
      return ms === undefined ? [] : [[pid, ms] as [number, number]]
    }),
  )
}

/** CPU the backends spent between two readings; one that connected in between counts from its start. */
const databaseCpuSince = (before: Map<number, number>, after: Map<number, number>): number => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0)

async function measure(target: Target, method: Method, script: () => string): Promise<Row> {
  console.log(`${target.name} ${method}: warm-up ${warmupSeconds} s, then ${seconds} s with ${connections} connections`)
  await runWrkScriptAsync(target.endpoint, script(), connections, warmupSeconds, WRK_TIMEOUT)
  await settle(target)
  const sentBefore = countsStatements(target) ? await sentStatements(target) : undefined
  const dbBefore = usesPostgres(target) ? await databaseCpuMs() : undefined
  const cpuBefore = cpuMs(target.child.pid)
  const result = await runWrkScriptAsync(target.endpoint, script(), connections, seconds, WRK_TIMEOUT)
  const cpuAfter = cpuMs(target.child.pid)
  const dbAfter = dbBefore && (await databaseCpuMs())
  // After the requests still in flight when wrk stopped, which wrk does not count.
  await settle(target)
  const sentAfter = sentBefore === undefined ? undefined : await sentStatements(target)
  const cpuUsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && result.requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / result.requests : undefined
  const statementsPerRequest = sentBefore !== undefined && sentAfter !== undefined && result.requests > 0 ? (sentAfter - sentBefore) / result.requests : undefined
  const dbCpuUsPerRequest = dbBefore && dbAfter && result.requests > 0 ? (databaseCpuSince(dbBefore, dbAfter) * 1000) / result.requests : undefined
  return { name: target.name, method, ...result, cpuUsPerRequest, statementsPerRequest, dbCpuUsPerRequest }
}

async function serverFor(kind: Kind, urls: Partial<Record<Kind, string>>, nodeArgs: string[] = []): Promise<Target> {
  if (kind === 'sdk') return startServer('sdk (memory)', 'sdk.ts', {}, nodeArgs)
  if (kind.startsWith('sdk-')) return startServer(`sdk ${kind.slice(4)}`, 'sdk.ts', { BENCH_SDK_DB: urls[kind] ?? '' }, nodeArgs)
  if (kind === 'postgres-app')
    return startServer('ours postgres-app', 'store-server.ts', { BENCH_STORE: 'postgres-direct', BENCH_DB_URL: urls[kind] ?? '', BENCH_RUN_CAP: 'default' }, nodeArgs)
  return startServer(kind === 'memory' ? 'ours memory' : `ours ${kind}`, 'store-server.ts', { BENCH_STORE: kind, BENCH_DB_URL: urls[kind] ?? '' }, nodeArgs)
}

async function measureStore(kind: Kind, urls: Partial<Record<Kind, string>>): Promise<Row[]> {
  const target = await serverFor(kind, urls)
  try {
    await sendOne(target)
    if (kind === 'postgres-app') return [await measure(target, 'SendMessage', () => sendScript(appOwners))]
    const send = await measure(target, 'SendMessage', () => sendScript())
    await settle(target)
    // Made after the SendMessage run, which would have trimmed them: the exchange keeps the newest
    // 64 settled tasks per owner by default. The oldest must still be there.
    const ids: string[] = []
    for (let i = 0; i < taskIdCount; i++) ids.push(await sendOne(target))
    await getOne(target, ids[0]!)
    return [send, await measure(target, 'GetTask', () => getScript(ids))]
  } finally {
    await stopServer(target)
  }
}

// ---------------------------------------------------------------------------------------------
// Profile

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

type Ranked = [string, number][]

interface ProfileSummary {
  requests: number
  /** Tasks the server created in the run (wrk's count misses the requests in flight at the end). */
  tasks: number
  /** SQL statements sent during the profiled run, by text. */
  statements: Ranked
  busyMs: number
  idleMs: number
  byPackage: Ranked
  byFunction: Ranked
}

async function statementCounts(target: Target): Promise<Record<string, number>> {
  const response = await fetch(target.endpoint.replace(/\/a2a$/, '/bench/queries'), { signal: AbortSignal.timeout(10_000) })
  if (!response.ok) throw new Error(`${target.name} /bench/queries: HTTP ${response.status}`)
  return (await response.json()) as Record<string, number>
}

async function profileStore(kind: (typeof profiledKinds)[number], url: string): Promise<ProfileSummary> {
  const dir = join(tempDir, 'prof')
  mkdirSync(dir, { recursive: true })
  const spawnedAt = performance.now()
  const target = await serverFor(kind, { [kind]: url }, ['--cpu-prof', `--cpu-prof-dir=${dir}`])
  let requests: number
  // The profile covers the whole process: only the samples inside the measured run are counted
  // (offsets from spawn; the profiler starts a few ms after it, so the window is a little late).
  let window: [number, number]
  let statements: Ranked
  let tasks: number
  try {
    await sendOne(target)
    let script = sendScript
    if (profiledMethod === 'GetTask') {
      const ids: string[] = []
      for (let i = 0; i < taskIdCount; i++) ids.push(await sendOne(target))
      script = () => getScript(ids)
    }
    console.log(`profiling ours ${kind} ${profiledMethod}: 1 s warm-up, then ${profileSeconds} s with ${connections} connections under --cpu-prof`)
    await runWrkScriptAsync(target.endpoint, script(), connections, 1, WRK_TIMEOUT)
    await settle(target)
    const before = await statementCounts(target)
    const from = performance.now() - spawnedAt
    requests = (await runWrkScriptAsync(target.endpoint, script(), connections, profileSeconds, WRK_TIMEOUT)).requests
    window = [from, performance.now() - spawnedAt]
    const after = await statementCounts(target)
    statements = Object.entries(after)
      .map(([sql, count]): [string, number] => [sql, count - (before[sql] ?? 0)])
      .filter(([, count]) => count > 0)
      .sort((a, b) => b[1] - a[1])
    // Requests in flight when wrk stops are served but not counted by wrk: count the tasks made.
    tasks = profiledMethod === 'GetTask' ? requests : (statements.find(([sql]) => /^INSERT INTO [`"\w.]*A2ATask[`"]? \(/.test(sql))?.[1] ?? requests)
  } finally {
    await stopServer(target, 15_000)
  }
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main one (tsx's loader has its own).
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile') && name.split('.')[4] === '0')
  if (!file) throw new Error('the profiled server wrote no main-thread .cpuprofile')
  return { requests, tasks, statements, ...selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, window) }
}

/** Self time per node of the samples taken between `window` ms after the profile started. */
function selfTimes(profile: Profile, window: [number, number]): Omit<ProfileSummary, 'requests' | 'tasks' | 'statements'> {
  const self = new Map<number, number>()
  let at = 0
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000
    at += delta
    if (at >= window[0] && at <= window[1]) self.set(id, (self.get(id) ?? 0) + delta)
  })
  const byPackage = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let idleMs = 0
  let busyMs = 0
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0
    if (ms === 0) continue
    const { functionName, lineNumber } = node.callFrame
    if (functionName === '(idle)') {
      idleMs += ms
      continue
    }
    busyMs += ms
    const url = node.callFrame.url.replace(/\?.*$/, '')
    const where = packageOf(url, functionName)
    byPackage.set(where, (byPackage.get(where) ?? 0) + ms)
    const shortUrl = url
      .replace(/^file:\/\//, '')
      .replace(root, '')
      .replace(/^.*node_modules\//, '')
    const name = url ? `${functionName || '(anonymous)'} ${shortUrl}:${lineNumber + 1}` : `${functionName || '(anonymous)'} (native)`
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms)
  }
  const top = (map: Map<string, number>, n: number): Ranked => [...map].sort((a, b) => b[1] - a[1]).slice(0, n)
  return { busyMs, idleMs, byPackage: top(byPackage, 12), byFunction: top(byFunction, 15) }
}

/** `node_modules/<pkg>` (scoped too), a runtime folder, node internals, or the VM itself. */
function packageOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(garbage collector)' || functionName === '(program)') return functionName
    return '(native functions: better-sqlite3 calls, builtins)'
  }
  if (url.startsWith('node:')) return 'node internals (http, net, streams)'
  if (url.startsWith('wasm://')) return 'wasm (Prisma query compiler)'
  const path = url.replace(/^file:\/\//, '')
  const module = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)
  if (module) return module[1]!
  if (path.includes('/__fixture__/') && path.includes('/generated/')) return 'generated Prisma client'
  if (path.startsWith(root)) {
    const parts = path.slice(root.length).split('/')
    return parts[0] === 'packages' ? parts.slice(0, parts[3]?.includes('.') ? 3 : 4).join('/') : parts.slice(0, 2).join('/')
  }
  return path
}

// ---------------------------------------------------------------------------------------------
// Report

function printTable(rows: Row[]): void {
  const cells = [
    ['server', 'method', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'requests', 'server cpu µs/req', 'db cpu µs/req', 'statements/req'],
    ...rows.map((row) => [
      row.name,
      row.method,
      row.rps.toFixed(0),
      row.p50.toFixed(2),
      row.p99.toFixed(2),
      String(row.errors),
      String(row.requests),
      row.cpuUsPerRequest === undefined ? 'n/a' : row.cpuUsPerRequest.toFixed(0),
      row.dbCpuUsPerRequest === undefined ? 'n/a' : row.dbCpuUsPerRequest.toFixed(0),
      row.statementsPerRequest === undefined ? 'n/a' : row.statementsPerRequest.toFixed(2),
    ]),
  ]
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)))
  const line = (row: string[]) => row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  console.log(line(cells[0]!))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const row of cells.slice(1)) console.log(line(row))
}

function printRanked(title: string, ranked: Ranked, busyMs: number, tasks: number): void {
  console.log(title)
  for (const [name, ms] of ranked) {
    const perTask = tasks > 0 ? `${((ms * 1000) / tasks).toFixed(0).padStart(5)} µs/task` : ''
    console.log(`  ${((100 * ms) / busyMs).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${perTask}  ${name}`)
  }
}

/** Prints the rate beside the SDK's (`sdk`: in memory, or on the same database), and whether it meets `goalRatio` when there is one. */
function compare(rows: Row[], method: Method, name: string, goalRatio?: number, sdk = 'sdk (memory)'): void {
  // A kind listed more than once in BENCH_STORES is measured once per listing: its k-th row pairs
  // with the SDK's k-th, and the median pair is the figure (one round on a 2-core machine moves by 30-50%).
  const ours = rows.filter((row) => row.name === name && row.method === method)
  const sdks = rows.filter((row) => row.name === sdk && row.method === method && row.rps > 0)
  const pairs = ours
    .slice(0, sdks.length)
    .map((row, i) => ({ ratio: row.rps / sdks[i]!.rps, cpu: row.cpuUsPerRequest && sdks[i]!.cpuUsPerRequest ? row.cpuUsPerRequest / sdks[i]!.cpuUsPerRequest : undefined }))
  if (pairs.length === 0) return
  const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor((pairs.length - 1) / 2)]!
  const each = pairs.length > 1 ? ` (median of ${pairs.length} pairs: ${pairs.map((pair) => `${pair.ratio.toFixed(2)}x`).join(', ')})` : ''
  const cpu = median.cpu === undefined ? '' : `; server CPU per request ${median.cpu.toFixed(2)}x the SDK's (lower is cheaper)`
  const goal = goalRatio === undefined ? '' : ` — goal (≥ ${goalRatio.toFixed(2)}x): ${median.ratio >= goalRatio ? 'MET' : 'NOT MET'}`
  console.log(`${method}: ${name} / ${sdk === 'sdk (memory)' ? 'sdk in-memory' : sdk} throughput ${median.ratio.toFixed(2)}x${each}${goal}${cpu}`)
}

/** What the agent-wide run cap (generated apps' default) costs per send: postgres-app against postgres-direct, same run. */
function printRunCapCost(rows: Row[]): void {
  const app = rows.find((row) => row.name === 'ours postgres-app' && row.method === 'SendMessage')
  const direct = rows.find((row) => row.name === 'ours postgres-direct' && row.method === 'SendMessage')
  const sdk = rows.find((row) => row.name === 'sdk (memory)' && row.method === 'SendMessage')
  if (!app || !direct || direct.rps <= 0) return
  const more = (a: number | undefined, b: number | undefined, digits = 0) => (a === undefined || b === undefined ? 'n/a' : `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(digits)}`)
  const vsSdk = sdk && sdk.rps > 0 ? `, ${(app.rps / sdk.rps).toFixed(2)}x the sdk in-memory rate` : ''
  console.log(
    `SendMessage with the default run cap counted agent-wide (ours postgres-app, ${appOwners} owners): ${(app.rps / direct.rps).toFixed(2)}x postgres-direct's rate${vsSdk}; ` +
      `per send ${more(app.statementsPerRequest, direct.statementsPerRequest, 2)} statements, ${more(app.cpuUsPerRequest, direct.cpuUsPerRequest)} µs server CPU, ${more(app.dbCpuUsPerRequest, direct.dbCpuUsPerRequest)} µs db CPU`,
  )
}

async function main(): Promise<void> {
  if (!wrkAvailable()) throw new Error('stores.bench.ts needs wrk (apt-get install wrk)')
  const perStore = 2 * 2 * (warmupSeconds + seconds) + 60
  const budgetMs = (selected.length * perStore + (profiling ? profileSeconds + 90 : 0) + 30) * 1000
  const watchdog = setTimeout(() => {
    console.error(`bench exceeded its ${budgetMs / 1000} s budget`)
    void cleanup().finally(() => process.exit(1))
  }, budgetMs)
  watchdog.unref()

  try {
    const urls: Partial<Record<Kind, string>> = {}
    if (selected.includes('sqlite') || (profiling && profiled === 'sqlite')) urls.sqlite = createSqlite('store.db')
    if (selected.includes('sqlite-direct') || selected.includes('sdk-sqlite') || (profiling && profiled === 'sqlite-direct')) urls['sqlite-direct'] = createSqlite('direct.db')
    // Both PostgreSQL stores on one database, one after the other: the same tables either way.
    if (['postgres', 'postgres-direct', 'postgres-app', 'sdk-postgres'].some((kind) => selected.includes(kind as Kind)) || (profiling && profiled === 'postgres-direct')) {
      urls.postgres = urls['postgres-direct'] = urls['postgres-app'] = urls['sdk-postgres'] = await createPostgres()
    }
    if (['mysql', 'mysql-direct', 'sdk-mysql'].some((kind) => selected.includes(kind as Kind)) || (profiling && profiled === 'mysql-direct'))
      urls.mysql = urls['mysql-direct'] = urls['sdk-mysql'] = await createMysql()
    // The SDK's DatabaseTaskStore on the same databases as ours: SqliteStore's file, the PostgreSQL and MariaDB databases.
    if (urls['sqlite-direct']) urls['sdk-sqlite'] = `sqlite:${urls['sqlite-direct'].slice('file:'.length)}`
    for (const kind of ['sdk-sqlite', 'sdk-postgres', 'sdk-mysql'] as const) if (selected.includes(kind)) await sdkMigrate(urls[kind]!)
    const rows: Row[] = []
    for (const kind of selected) rows.push(...(await measureStore(kind, urls)))
    const profiledUrl = urls[profiled]
    const profile = profiling && profiledUrl ? await profileStore(profiled, profiledUrl) : undefined

    console.log()
    console.log(
      `load average (1, 5, 15 min) at the end: ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')} on ${cpus().length} cores`,
    )
    console.log(
      `Stores: ${connections} connections, ${seconds} s after ${warmupSeconds} s warm-up, load from wrk, GetTask over ${taskIdCount} task ids (Node ${process.version}, runtime from ${runtimeFrom})`,
    )
    printTable(rows)
    console.log()
    // The goals are the stores generated apps run (SqliteStore, PostgresStore); PrismaStore over
    // SQLite, for apps that keep tasks through their own Prisma client, is printed beside them.
    const goals: [name: string, send?: number, get?: number][] = [['ours sqlite'], ['ours sqlite-direct', 1], ['ours postgres-direct', 1, 1.5]]
    for (const [name, send, get] of goals) {
      compare(rows, 'SendMessage', name, send)
      compare(rows, 'GetTask', name, get)
    }
    // Each of ours against the SDK's DatabaseTaskStore on the same database.
    for (const [name, sdk] of [
      ['ours sqlite-direct', 'sdk sqlite'],
      ['ours postgres-direct', 'sdk postgres'],
      ['ours mysql-direct', 'sdk mysql'],
      ['ours mysql', 'sdk mysql'],
    ] as const) {
      compare(rows, 'SendMessage', name, name.endsWith('direct') ? 5 : undefined, sdk)
      compare(rows, 'GetTask', name, undefined, sdk)
    }
    printRunCapCost(rows)
    if (profile) {
      console.log()
      const total = profile.busyMs + profile.idleMs
      console.log(
        `where ours ${profiled} ${profiledMethod} spends its time (--cpu-prof self time, ${profileSeconds} s, ${profile.requests} responses, ${profile.tasks} requests served; ` +
          `main thread busy ${profile.busyMs.toFixed(0)} ms of ${total.toFixed(0)} ms, ${((profile.busyMs * 1000) / Math.max(profile.tasks, 1)).toFixed(0)} µs per request):`,
      )
      printRanked('by package (% of busy time):', profile.byPackage, profile.busyMs, profile.tasks)
      printRanked('by function:', profile.byFunction, profile.busyMs, profile.tasks)
      const sent = profile.statements.reduce((sum, [, count]) => sum + count, 0)
      // Per task the server created (requests in flight when wrk stops are served but not counted by wrk).
      const perRequest = (count: number) => (count / Math.max(profile.tasks, 1)).toFixed(2)
      if (sent === 0) console.log(`SQL statements per ${profiledMethod}: n/a (${profiled} does not go through Prisma's adapter, where they are counted)`)
      else {
        console.log(`SQL statements per ${profiledMethod}: ${perRequest(sent)} (${sent} for ${profile.tasks} requests in the run), by text:`)
        for (const [sql, count] of profile.statements.slice(0, 12)) console.log(`  ${perRequest(count).padStart(6)}  ${sql}`)
      }
    }
  } finally {
    clearTimeout(watchdog)
    await Promise.all(children.size ? [...children].map((child) => stopProcess(child)) : [])
    await cleanup()
  }
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  await cleanup()
  process.exit(1)
})
