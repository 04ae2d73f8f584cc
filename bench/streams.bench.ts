/**
 * SSE streams, in two phases.
 *
 * Burst: BENCH_STREAMS SendStreamingMessage requests issued at once (bench/load/sse-burst.ts),
 * each running a `hold` task that goes WORKING and waits; first-event latency per stream (from
 * its connect to its first event) and server RSS per open stream, on ours (as generated apps
 * mount it), on the official SDK's server (bench/servers/sdk-streams.ts) and on bare node:http
 * answering a fixed snapshot and WORKING event (bench/servers/raw-streams.ts: the floor of this
 * machine), same listen backlog, same run. Targets (issue 13): first-event p99 under 2 s and
 * under 40 KiB RSS per stream. BENCH_BURST_SERVERS picks the servers (default ours,sdk,raw).
 * The servers take turns for BENCH_BURST_ROUNDS rounds (default 3), a fresh process each: one
 * burst's p99 on a 2-core VM moves by a second between identical runs (the load generator shares
 * the cores), so each server's table column is its median round by p99 (the lower middle one for
 * an even count), with every round's p99 beside it, and the goal is judged on that median.
 * Each server first serves BENCH_BURST_WARMUP streams end to end (default 50, 200 at a time).
 * That leaves the JIT's warm-up in every server's p99: with 2,000 and the accept queue raised,
 * raw node:http went from 1.5-1.8 s to 0.9-1.0 s, ours from 2.0-2.3 s to 1.8-2.2 s. But the heap
 * a longer warm-up leaves behind is reused by the burst, so RSS per open stream then reads low
 * (11 KiB for 3,000 streams after 2,000, against 20 KiB fresh): the default measures both fresh.
 *
 * The kernel caps every listen backlog at net.core.somaxconn (4096 by default): a burst past it
 * overflows the accept queue, and each dropped SYN is retried by its client after 1 s, then 3 s,
 * 7 s. The table prints the drops and the TCP connect p99 beside the first-event figures. How
 * many SYNs a run drops is a race between the client's connects and the server's accepts (0 to
 * 10,000 on one server in one hour here, raw node:http included), so at that cap p99 measures
 * the race more than the server. Where the accept queue holds fewer than BENCH_STREAMS and the
 * driver may make a network namespace (root, util-linux `unshare`), the burst runs a second time
 * in a private one whose somaxconn and tcp_max_syn_backlog are raised to fit the burst (its own
 * loopback, the machine's settings untouched): the server's own cost, with no retried SYN. Every
 * server asks for the runtime's default backlog (65535, as many as the system allows).
 * BENCH_RAISED_QUEUE=0 skips that run; to raise the machine's own cap instead:
 *   sysctl -w net.core.somaxconn=16384 && BENCH_PHASES=burst npm run bench:streams
 *
 * BENCH_RUNTIME=dist (what `npm run bench` sets; see bench/load/server-process.ts) runs ours on the runtime's built package (dist/, built first), as a
 * generated app imports it, instead of its TypeScript sources under tsx (whose keepNames wraps
 * every function the runtime makes per stream in a `__name` call).
 *
 * Fan-out: server memory per open stream, and fan-out latency from one stored artifact chunk
 * to every subscriber. Goal: 10,000 concurrent streams under 1 GiB server RSS.
 *
 *   npm run bench                                   # runs send-message.bench.ts, then this
 *   BENCH_STREAMS=1000 npm run bench:streams
 *   BENCH_PHASES=burst npm run bench:streams        # burst, fanout or both (default)
 *
 * The server (bench/servers/streams-server.ts) runs in its own process. The driver makes
 * BENCH_TASKS long-running `hold` tasks (SendMessage, returnImmediately), opens BENCH_STREAMS
 * SubscribeToTask streams spread evenly over them (one socket each, node:http), and reads the
 * server's memory before and after. It then triggers BENCH_TICKS ticks, BENCH_TICK_GAP_MS apart:
 * on each tick every task appends a chunk whose text is the server's wall clock at emit time, and
 * each client records its receive time minus that. Finally the tasks complete and every stream
 * must end on the COMPLETED status event.
 *
 * Other knobs: BENCH_OWNERS (tasks and their streams spread over this many owners),
 * BENCH_OPEN_CONCURRENCY (streams being opened at once), BENCH_WARMUP_STREAMS,
 * BENCH_TIMEOUT_SECONDS (the watchdog). Passed to the server: BENCH_KEEPALIVE_MS (its stream
 * keep-alive interval), BENCH_HTTP=node (bare node:http instead of Express), BENCH_SERVER_ARGS
 * (extra node flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_PROFILE_DIR (ours profiles the
 * burst alone, from its first request until every stream has its first event, into
 * <dir>/burst-<streams>.cpuprofile: --cpu-prof covers start-up, warm-up and the end as well).
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Agent, request, type ClientRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { listenBacklog, wallMs } from './servers/shared.js'
import { cpuMs, positiveInt, procStatusBytes } from './load/env.js'
import { runtimeFrom, spawnServer, stopProcess, type ServerProcess } from './load/server-process.js'
import { openBurst } from './load/sse-burst.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const streamCount = positiveInt('BENCH_STREAMS', 10_000)
const taskCount = Math.min(positiveInt('BENCH_TASKS', 100), streamCount)
const tickCount = positiveInt('BENCH_TICKS', 20)
const tickGapMs = positiveInt('BENCH_TICK_GAP_MS', 200)
const ownerCount = Math.min(positiveInt('BENCH_OWNERS', 10), taskCount)
const openConcurrency = positiveInt('BENCH_OPEN_CONCURRENCY', 256)
const warmupStreams = positiveInt('BENCH_WARMUP_STREAMS', 200)
const burstWarmup = positiveInt('BENCH_BURST_WARMUP', 50)
const burstRounds = positiveInt('BENCH_BURST_ROUNDS', 3)
/** Streams open at once in a warm-up round. */
const WARMUP_ROUND = 200
const phases = new Set((process.env.BENCH_PHASES || 'burst,fanout').split(','))
const burstServers = (process.env.BENCH_BURST_SERVERS || 'ours,sdk,raw').split(',')
const MiB = 1024 * 1024
const KiB = 1024
const GOAL_STREAMS = 10_000
const GOAL_RSS = 1024 * MiB
const GOAL_FIRST_EVENT_P99_MS = 2000
const GOAL_RSS_PER_STREAM = 40 * KiB

// ---------------------------------------------------------------------------------------------
// The server process

type Server = ServerProcess

let server: Server | undefined

async function startServer(): Promise<Server> {
  const file = fileURLToPath(new URL('./servers/streams-server.ts', import.meta.url))
  // --expose-gc: /bench/memory collects first, so heapUsed is live data.
  const started = await spawnServer('streams', file, { cwd: root, nodeArgs: ['--expose-gc'] })
  started.child.once('exit', (code, signal) => {
    if (!stopping) console.error(`streams server exited unexpectedly (code ${code}, signal ${signal})`)
  })
  return started
}

let stopping = false

async function stopServer(target: Server): Promise<void> {
  stopping = true
  await stopProcess(target.child)
}

/** The soft and hard open-files limits, from /proc (Linux); undefined elsewhere. */
function openFilesLimits(): { soft: number; hard: number } | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'))
    const [, soft, hard] = line?.split(/\s{2,}/) ?? []
    return Number.isFinite(Number(soft)) ? { soft: Number(soft), hard: hard === 'unlimited' ? Infinity : Number(hard) } : undefined
  } catch {
    return undefined
  }
}

/**
 * Both processes hold one socket per stream, plus a margin for node's own descriptors. A soft
 * limit under that is raised to the hard one (prlimit, util-linux; servers inherit it).
 */
function ensureOpenFiles(needed: number): void {
  const limits = openFilesLimits()
  if (!limits || limits.soft >= needed) return
  if (limits.hard >= needed) {
    try {
      execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${limits.hard}:${limits.hard}`])
    } catch {
      // Reported below.
    }
    if ((openFilesLimits()?.soft ?? 0) >= needed) return console.log(`streams: raised the open-files limit to ${limits.hard} (was ${limits.soft})`)
  }
  throw new Error(`BENCH_STREAMS=${streamCount} needs ${needed} open files; the limit is ${limits.soft} (hard ${limits.hard}, ulimit -n): lower BENCH_STREAMS or raise the limit`)
}

interface ServerMemory {
  rss: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
  held: number
  activeRuns: number
}

// Control calls are few, so fetch is fine for them; streams use node:http below.
const base = () => `http://127.0.0.1:${server!.port}`

async function control<T>(method: 'GET' | 'POST', path: string): Promise<T> {
  const response = await fetch(`${base()}${path}`, { method })
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

const memory = () => control<ServerMemory>('GET', '/bench/memory')

// ---------------------------------------------------------------------------------------------
// Tasks

const runId = `${process.pid}-${Date.now()}`
let rpcId = 0
const ownerOf = (task: number) => `owner-${task % ownerCount}`
const rpcHeaders = (owner: string) => ({ 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${owner}` })

interface HeldTask {
  id: string
  owner: string
}

async function createTasks(count: number, label: string): Promise<HeldTask[]> {
  const tasks = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const owner = ownerOf(i)
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++rpcId,
        method: 'SendMessage',
        params: {
          message: { messageId: `${label}-${runId}-${i}`, role: 'ROLE_USER', parts: [{ text: 'hold' }], metadata: { skill: 'hold' } },
          configuration: { returnImmediately: true },
        },
      })
      const response = await fetch(`${base()}/a2a`, { method: 'POST', headers: rpcHeaders(owner), body })
      const reply = (await response.json()) as { result?: { task?: { id: string } }; error?: unknown }
      const id = reply.result?.task?.id
      if (!id) throw new Error(`SendMessage did not answer a task: HTTP ${response.status} ${JSON.stringify(reply).slice(0, 300)}`)
      return { id, owner }
    }),
  )
  // Ticks reach only handlers already waiting on them.
  const deadline = Date.now() + 30_000
  while ((await memory()).held < count) {
    if (Date.now() > deadline) throw new Error(`only ${(await memory()).held} of ${count} hold handlers started within 30 s`)
    await sleep(20)
  }
  return tasks
}

// ---------------------------------------------------------------------------------------------
// SSE clients

/** One socket per stream: no pooling, no per-host cap. */
const agent = new Agent({ keepAlive: false, maxSockets: Infinity })

interface Round {
  /** Receive time minus emit time of every tick chunk, ms. */
  latencies: Float64Array
  deliveries: number
  opened: number
  ended: number
  failures: string[]
  onFirst: (() => void) | undefined
  onEnd: (() => void) | undefined
  onDelivery: (() => void) | undefined
}

class Stream {
  #buffer = ''
  #data: string | undefined
  #event: string | undefined
  request: ClientRequest | undefined
  first = false
  ticks = 0
  /** The state of the last status event (or snapshot). */
  lastState: string | undefined
  ended = false

  constructor(
    readonly round: Round,
    readonly task: HeldTask,
  ) {}

  /** Resolves once the snapshot arrived, or the stream failed before it. */
  open(): Promise<void> {
    return new Promise((resolve) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'SubscribeToTask', params: { id: this.task.id } })
      const settleOpen = () => resolve()
      const fail = (reason: string) => {
        if (this.ended) return
        this.ended = true
        this.round.failures.push(reason)
        this.round.ended++
        this.round.onEnd?.()
        settleOpen()
      }
      const req = request({
        host: '127.0.0.1',
        port: server!.port,
        path: '/a2a',
        method: 'POST',
        agent,
        headers: { ...rpcHeaders(this.task.owner), 'Content-Length': Buffer.byteLength(body) },
      })
      this.request = req
      req.on('error', (error) => fail(`request error: ${error.message}`))
      req.on('response', (response) => {
        response.setEncoding('utf8')
        if (response.statusCode !== 200 || !response.headers['content-type']?.startsWith('text/event-stream')) {
          let text = ''
          response.on('data', (chunk: string) => (text += chunk))
          response.on('end', () => fail(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`))
          return
        }
        response.on('data', (chunk: string) => {
          // Stamped before parsing: what this client spends on earlier chunks counts as latency.
          const at = wallMs()
          this.#feed(chunk, at)
          if (this.first) settleOpen()
        })
        response.on('end', () => this.#end())
        response.on('error', (error) => fail(`response error: ${error.message}`))
        response.on('close', () => {
          if (!this.ended) fail(this.first ? 'closed before the stream ended' : 'closed before the first event')
        })
      })
      req.end(body)
    })
  }

  close(): void {
    this.request?.destroy()
  }

  #end(): void {
    if (this.ended) return
    this.ended = true
    this.round.ended++
    this.round.onEnd?.()
  }

  /** A minimal SSE parser: `data:` and `event:` lines, dispatch on a blank line; ids and comments ignored. */
  #feed(chunk: string, at: number): void {
    const buffer = this.#buffer + chunk
    let start = 0
    let newline: number
    while ((newline = buffer.indexOf('\n', start)) !== -1) {
      const line = buffer.slice(start, newline)
      start = newline + 1
      if (line === '') {
        if (this.#data !== undefined) this.#dispatch(this.#event, this.#data, at)
        this.#data = undefined
        this.#event = undefined
      } else if (line.startsWith('data:')) {
        const value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5)
        this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`
      } else if (line.startsWith('event:')) {
        this.#event = line.slice(6).trim()
      }
    }
    this.#buffer = buffer.slice(start)
  }

  #dispatch(event: string | undefined, data: string, at: number): void {
    const round = this.round
    const message = JSON.parse(data) as { result?: StreamResult; error?: { message?: string } }
    if (event === 'error' || message.error) {
      round.failures.push(`error event: ${message.error?.message ?? data.slice(0, 200)}`)
      return
    }
    const result = message.result ?? {}
    if (result.task) {
      this.lastState = result.task.status.state
      if (!this.first) {
        this.first = true
        round.opened++
        round.onFirst?.()
      }
    } else if (result.statusUpdate) {
      this.lastState = result.statusUpdate.status.state
    } else if (result.artifactUpdate) {
      const emitted = Number(result.artifactUpdate.artifact.parts[0]?.text)
      if (Number.isFinite(emitted) && round.deliveries < round.latencies.length) {
        round.latencies[round.deliveries++] = at - emitted
        this.ticks++
        round.onDelivery?.()
      }
    }
  }
}

interface StreamResult {
  task?: { status: { state: string } }
  statusUpdate?: { status: { state: string } }
  artifactUpdate?: { artifact: { parts: { text?: string }[] } }
}

/** Resolves true once `done()` holds (checked whenever `round[hook]` fires), false after `idleMs` without progress. */
function until(round: Round, hook: 'onFirst' | 'onEnd' | 'onDelivery', done: () => boolean, idleMs: number): Promise<boolean> {
  if (done()) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(false), idleMs)
    const finish = (ok: boolean) => {
      clearTimeout(timer)
      round[hook] = undefined
      resolve(ok)
    }
    round[hook] = () => {
      if (done()) return finish(true)
      // Idle, not total: a slow but moving round is waited for.
      timer.refresh()
    }
  })
}

async function openAll(streams: Stream[]): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < streams.length) await streams[next++]!.open()
  }
  await Promise.all(Array.from({ length: Math.min(openConcurrency, streams.length) }, worker))
}

// ---------------------------------------------------------------------------------------------
// One round: tasks, streams, ticks, finish

interface Result {
  streams: number
  tasks: number
  opened: number
  openSeconds: number
  before: ServerMemory
  open: ServerMemory
  afterTicks: ServerMemory
  ticks: number
  /** From the first tick until the last tick's writes were done. */
  tickSeconds: number
  deliveries: number
  expected: number
  p50: number
  p99: number
  max: number
  /** The server's peak RSS so far (VmHWM), read once the streams have ended. */
  peakRss: number | undefined
  /** Server RSS read from /proc after each tick's writes. */
  rssByTick: number[]
  /** Server time from tick request to every chunk written to every socket, ms. */
  fanOutP50: number
  fanOutMax: number
  serverCpuMsPerTick: number | undefined
  clientCpuMsPerTick: number
  completed: number
  incomplete: string[]
  failures: string[]
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

async function runRound(label: string, streams: number, tasks: number, ticks: number): Promise<Result> {
  const held = await createTasks(tasks, label)
  const before = await memory()

  const round: Round = {
    latencies: new Float64Array(streams * ticks),
    deliveries: 0,
    opened: 0,
    ended: 0,
    failures: [],
    onFirst: undefined,
    onEnd: undefined,
    onDelivery: undefined,
  }
  // Evenly: stream i follows task i mod T.
  const clients = Array.from({ length: streams }, (_, i) => new Stream(round, held[i % tasks]!))
  const openStarted = performance.now()
  await openAll(clients)
  await until(round, 'onFirst', () => round.opened + round.failures.length >= streams, 10_000)
  const openSeconds = (performance.now() - openStarted) / 1000
  const open = await memory()
  if (round.opened < streams) {
    console.error(`${label}: ${round.opened} of ${streams} streams opened; first failures: ${round.failures.slice(0, 3).join(' | ')}`)
  }

  const fanOut: number[] = []
  const rssByTick: number[] = []
  const serverCpuBefore = cpuMs(server!.child.pid)
  const clientCpuBefore = process.cpuUsage()
  const ticksStarted = performance.now()
  for (let k = 0; k < ticks; k++) {
    // Ticks on a fixed schedule; a tick that overran its gap is followed at once.
    const wait = ticksStarted + k * tickGapMs - performance.now()
    if (wait > 0) await sleep(wait)
    const reply = await control<{ tasks: number; failed: number; fanOutMs: number }>('POST', '/bench/tick')
    if (reply.tasks !== tasks || reply.failed > 0) round.failures.push(`tick ${k}: ${reply.tasks} tasks wrote, ${reply.failed} writes failed`)
    fanOut.push(reply.fanOutMs)
    rssByTick.push(procStatusBytes(server!.child.pid, 'VmRSS') ?? Number.NaN)
  }
  // Each tick waits for the previous one's writes, so a server slower than the gap runs ticks back
  // to back instead of queueing them: latency stays one tick's fan-out, and this shows the rate.
  const tickSeconds = (performance.now() - ticksStarted) / 1000
  const expected = round.opened * ticks
  await until(round, 'onDelivery', () => round.deliveries >= expected, 5000)
  const serverCpuAfter = cpuMs(server!.child.pid)
  const clientCpu = process.cpuUsage(clientCpuBefore)
  const afterTicks = await memory()

  await control('POST', '/bench/finish')
  await until(round, 'onEnd', () => round.ended >= streams, 10_000)
  let completed = 0
  const incomplete: string[] = []
  for (const client of clients) {
    if (client.ended && client.lastState === 'TASK_STATE_COMPLETED') completed++
    else if (incomplete.length < 5) incomplete.push(`task ${client.task.id}: ended=${client.ended} last=${client.lastState} ticks=${client.ticks}`)
    client.close()
  }

  // The kernel's high-water mark catches peaks between samples (GC lets the heap swell during ticks).
  const peakRss = procStatusBytes(server!.child.pid, 'VmHWM')
  const sorted = round.latencies.subarray(0, round.deliveries).sort()
  fanOut.sort((a, b) => a - b)
  return {
    streams,
    tasks,
    opened: round.opened,
    openSeconds,
    before,
    open,
    afterTicks,
    ticks,
    tickSeconds,
    deliveries: round.deliveries,
    expected: streams * ticks,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    peakRss,
    rssByTick,
    fanOutP50: fanOut[Math.floor(fanOut.length / 2)] ?? Number.NaN,
    fanOutMax: fanOut.at(-1) ?? Number.NaN,
    serverCpuMsPerTick: serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / ticks : undefined,
    clientCpuMsPerTick: (clientCpu.user + clientCpu.system) / 1000 / ticks,
    completed,
    incomplete,
    failures: round.failures,
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const mb = (bytes: number) => (bytes / MiB).toFixed(1)

/** First, a few evenly spaced, and last values of a series. */
function sampleSeries(values: number[], count = 5): number[] {
  if (values.length <= count) return values
  return Array.from({ length: count }, (_, i) => values[Math.round((i * (values.length - 1)) / (count - 1))]!)
}

function printReport(r: Result): void {
  const rssGrowth = r.open.rss - r.before.rss
  const heapGrowth = r.open.heapUsed - r.before.heapUsed
  const per = (bytes: number) => (r.opened > 0 ? (bytes / r.opened / 1024).toFixed(1) : 'n/a')
  const rows: [string, string][] = [
    ['streams open / asked', `${r.opened} / ${r.streams} (over ${r.tasks} tasks, ${ownerCount} owners)`],
    ['time to open all', `${r.openSeconds.toFixed(1)} s (${(r.opened / r.openSeconds).toFixed(0)} streams/s, ${openConcurrency} at a time)`],
    ['server RSS before → open', `${mb(r.before.rss)} → ${mb(r.open.rss)} MB`],
    ['RSS growth', `${mb(rssGrowth)} MB = ${per(rssGrowth)} KB/stream`],
    ['heapUsed before → open', `${mb(r.before.heapUsed)} → ${mb(r.open.heapUsed)} MB (${per(heapGrowth)} KB/stream)`],
    [
      'server RSS after ticks',
      `${mb(r.afterTicks.rss)} MB (heapUsed ${mb(r.afterTicks.heapUsed)}, heapTotal ${mb(r.afterTicks.heapTotal)}, external ${mb(r.afterTicks.external)} MB)`,
    ],
    [
      'server RSS over the ticks',
      `${sampleSeries(r.rssByTick)
        .map((bytes) => mb(bytes))
        .join(' → ')} MB`,
    ],
    ['server peak RSS (VmHWM)', r.peakRss === undefined ? 'n/a' : `${mb(r.peakRss)} MB`],
    ['deliveries / expected', `${r.deliveries} / ${r.expected}`],
    ['ticks', `${r.ticks} in ${r.tickSeconds.toFixed(1)} s (${((r.tickSeconds * 1000) / r.ticks).toFixed(0)} ms apart; asked ${tickGapMs} ms)`],
    ['fan-out latency p50', `${r.p50.toFixed(2)} ms`],
    ['fan-out latency p99', `${r.p99.toFixed(2)} ms`],
    ['fan-out latency max', `${r.max.toFixed(2)} ms`],
    ['server write of a tick p50 / max', `${r.fanOutP50.toFixed(1)} / ${r.fanOutMax.toFixed(1)} ms (all chunks stored and written to all sockets)`],
    ['CPU per tick server / client', `${r.serverCpuMsPerTick?.toFixed(0) ?? 'n/a'} / ${r.clientCpuMsPerTick.toFixed(0)} ms`],
    ['ended on COMPLETED', `${r.completed} / ${r.streams}`],
  ]
  const width = Math.max(...rows.map(([name]) => name.length))
  for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`)
  if (r.failures.length) console.log(`failures (${r.failures.length}): ${[...new Set(r.failures)].slice(0, 5).join(' | ')}`)
  if (r.incomplete.length) console.log(`streams that did not end on COMPLETED, first ${r.incomplete.length}: ${r.incomplete.join(' | ')}`)

  const peak = Math.max(r.open.rss, r.afterTicks.rss, r.peakRss ?? 0)
  const healthy = r.opened === r.streams && r.completed === r.streams && r.deliveries === r.expected
  if (r.streams >= GOAL_STREAMS) {
    const met = healthy && peak < GOAL_RSS
    console.log(`\ngoal (${GOAL_STREAMS} streams under 1 GiB server RSS): ${met ? 'MET' : 'NOT MET'}, peak RSS ${mb(peak)} MB with ${r.opened} streams`)
  } else if (r.opened > 0) {
    const projected = r.open.rss + (rssGrowth / r.opened) * (GOAL_STREAMS - r.opened)
    console.log(`\ngoal (${GOAL_STREAMS} streams under 1 GiB server RSS): not measured at ${r.streams} streams; linear projection ${mb(projected)} MB`)
  }
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Burst: SendStreamingMessage streams opened at once, ours and the SDK's

interface BurstResult {
  name: string
  streams: number
  opened: number
  p50: number
  p99: number
  max: number
  /** TCP connect p99, ms: over a second when SYNs were dropped and retried. */
  connectP99: number
  rssBefore: number
  rssOpen: number
  /** Server CPU from the first request until every stream had its first event, per stream. */
  serverCpuMs: number | undefined
  clientCpuMs: number
  /** Connections the kernel dropped at a full accept queue during the burst (machine-wide). */
  listenOverflows: number | undefined
  completed: number
  failures: string[]
}

/** TcpExt ListenOverflows from /proc/net/netstat (Linux): SYNs dropped because an accept queue was full. */
function listenOverflows(): number | undefined {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'))
    const value = Number(values?.split(' ')[names!.split(' ').indexOf('ListenOverflows')])
    return Number.isFinite(value) ? value : undefined
  } catch {
    return undefined
  }
}

async function runBurst(name: string, file: string): Promise<BurstResult> {
  const target = await spawnServer(name, fileURLToPath(new URL(`./servers/${file}`, import.meta.url)), { cwd: root, nodeArgs: ['--expose-gc'] })
  server = target
  try {
    const message = (i: number) => ({ messageId: `burst-${runId}-${i}`, role: 'ROLE_USER', parts: [{ text: 'hold' }], metadata: { skill: 'hold' } })
    const body = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendStreamingMessage', params: { message: message(i) } })
    // Streams end to end first, a round at a time: a server that cannot serve them is not measured.
    const warmups = Math.min(burstWarmup, streamCount)
    for (let done = 0; done < warmups; ) {
      const count = Math.min(WARMUP_ROUND, warmups - done)
      const warm = openBurst(target.port, count, (i) => ({ path: '/a2a', headers: rpcHeaders(ownerOf(i)), body: body(-1 - done - i) }))
      await warm.opened(10_000)
      await control('POST', '/bench/finish')
      await warm.settle(10_000)
      warm.close()
      if (warm.completed < count) throw new Error(`${name}: warm-up streams ${done + 1}-${done + count}: ${warm.completed} completed; ${warm.failures.slice(0, 3).join(' | ')}`)
      done += count
    }

    const before = await memory()
    const profiled = Boolean(process.env.BENCH_PROFILE_DIR) && name === 'ours'
    if (profiled) await control('POST', '/bench/profile/start')
    const cpuBefore = cpuMs(target.child.pid)
    const clientBefore = process.cpuUsage()
    const overflowsBefore = listenOverflows()
    const burst = openBurst(target.port, streamCount, (i) => ({ path: '/a2a', headers: rpcHeaders(ownerOf(i)), body: body(i) }))
    await burst.opened(30_000)
    const cpuAfter = cpuMs(target.child.pid)
    const client = process.cpuUsage(clientBefore)
    const overflowsAfter = listenOverflows()
    if (profiled) console.log(`streams: profile in ${(await control<{ file: string }>('POST', `/bench/profile/stop?name=burst-${streamCount}`)).file}`)
    const open = await memory()
    await control('POST', '/bench/finish')
    await burst.settle(30_000)
    burst.close()
    const sorted = burst.firstEvents()
    return {
      name,
      streams: streamCount,
      opened: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? Number.NaN,
      connectP99: percentile(burst.connects(), 99),
      rssBefore: before.rss,
      rssOpen: open.rss,
      serverCpuMs: cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / streamCount : undefined,
      clientCpuMs: (client.user + client.system) / 1000 / streamCount,
      listenOverflows: overflowsBefore !== undefined && overflowsAfter !== undefined ? overflowsAfter - overflowsBefore : undefined,
      completed: burst.completed,
      failures: burst.failures,
    }
  } finally {
    await stopServer(target)
    stopping = false
    server = undefined
  }
}

const somaxconn = (): string => {
  try {
    return readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim()
  } catch {
    return 'n/a'
  }
}

/** Connections the kernel queues for a server here: its backlog, capped at somaxconn. */
const acceptQueue = (): number => Math.min(Number(somaxconn()) || Infinity, listenBacklog())

/** A table row: its label, a server's cell, the target. */
type Row = [string, (r: BurstResult) => string, string]

/** Each server's rounds, as the table shows them: its median round by p99, with every round's p99. */
function printBursts(rounds: BurstResult[][]): void {
  const byP99 = rounds.map((runs) => [...runs].sort((a, b) => a.p99 - b.p99))
  const results = byP99.map((runs) => runs[Math.floor((runs.length - 1) / 2)]!)
  const p99s = new Map(byP99.map((runs) => [runs[0]!.name, runs.map((r) => r.p99.toFixed(0)).join(', ')]))
  const allHealthy = (name: string) => rounds.flat().every((r) => r.name !== name || (r.opened === r.streams && r.completed === r.streams))
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  const where = inRaisedQueue ? 'in a private network namespace with the accept queue raised, ' : ''
  console.log(
    `\nSendStreamingMessage: ${streamCount} streams issued at once (${where}Node ${process.version}, runtime from ${runtimeFrom}, listen backlog ${listenBacklog()} (net.core.somaxconn ${somaxconn()}), load average ${load})`,
  )
  if (acceptQueue() < streamCount) {
    console.log(`note: the accept queue holds ${acceptQueue()} connections, fewer than the ${streamCount} issued at once; see the header of bench/streams.bench.ts`)
  }
  const perStream = (r: BurstResult) => (r.opened > 0 ? (r.rssOpen - r.rssBefore) / r.opened : Number.NaN)
  // The same burst on bare node:http, doing no A2A work, is this machine's floor for it.
  const raw = results.find((r) => r.name === 'raw')
  const againstRaw: Row[] = raw ? [["first event p99 / raw node:http's", (r) => `${(r.p99 / raw.p99).toFixed(2)}×`, '']] : []
  const rows: Row[] = [
    ['streams with a first event', (r) => `${r.opened} / ${r.streams}`, ''],
    ['first event p50', (r) => `${r.p50.toFixed(0)} ms`, ''],
    ['first event p99 (median round)', (r) => `${r.p99.toFixed(0)} ms`, `< ${GOAL_FIRST_EVENT_P99_MS} ms`],
    [`first event p99, each of ${burstRounds} rounds`, (r) => `${p99s.get(r.name)} ms`, ''],
    ...againstRaw,
    ['first event max', (r) => `${r.max.toFixed(0)} ms`, ''],
    ['TCP connect p99', (r) => `${r.connectP99.toFixed(0)} ms`, ''],
    ['server RSS idle → open', (r) => `${mb(r.rssBefore)} → ${mb(r.rssOpen)} MB`, ''],
    ['RSS per open stream', (r) => `${(perStream(r) / KiB).toFixed(1)} KiB`, `< ${GOAL_RSS_PER_STREAM / KiB} KiB`],
    ['CPU per stream opened, server / client', (r) => `${r.serverCpuMs?.toFixed(2) ?? 'n/a'} / ${r.clientCpuMs.toFixed(2)} ms`, ''],
    ['accept-queue drops (SYNs retried after 1, 3, 7, 15 s)', (r) => String(r.listenOverflows ?? 'n/a'), ''],
    ['ended on COMPLETED', (r) => `${r.completed} / ${r.streams}`, ''],
  ]
  const cells = [['', ...results.map((r) => r.name), 'target'], ...rows.map(([label, cell, goal]) => [label, ...results.map(cell), goal])]
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)))
  for (const row of cells) console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '))
  for (const r of rounds.flat()) if (r.failures.length) console.log(`${r.name} failures (${r.failures.length}): ${[...new Set(r.failures)].slice(0, 3).join(' | ')}`)
  const ours = results.find((r) => r.name === 'ours')
  if (!ours) return
  const healthy = allHealthy('ours')
  console.log(
    `goal first-event p99 < ${GOAL_FIRST_EVENT_P99_MS} ms: ${healthy && ours.p99 < GOAL_FIRST_EVENT_P99_MS ? 'MET' : 'NOT MET'} (ours ${ours.p99.toFixed(0)} ms, the median of ${burstRounds} rounds: ${p99s.get('ours')} ms)`,
  )
  console.log(
    `goal RSS per stream < ${GOAL_RSS_PER_STREAM / KiB} KiB: ${healthy && perStream(ours) < GOAL_RSS_PER_STREAM ? 'MET' : 'NOT MET'} (ours ${(perStream(ours) / KiB).toFixed(1)} KiB)`,
  )
  if (!healthy) process.exitCode = 1
}

/** Set in the copy of this driver that {@link burstInRaisedQueue} runs. */
const inRaisedQueue = process.env.BENCH_IN_RAISED_QUEUE === '1'

/**
 * The burst phase again, in this driver's copy run in a new network namespace (`unshare -n`: its
 * own loopback, brought up, and its own somaxconn and SYN backlog, raised to hold the whole
 * burst). Its table is printed as it runs; a failed burst fails this run. Skipped, with a line
 * saying why, where no namespace can be made (not root, no util-linux or iproute2).
 */
async function burstInRaisedQueue(): Promise<void> {
  const size = String(Math.max(streamCount + 1024, 16_384))
  const setUp = `ip link set lo up && sysctl -qw net.core.somaxconn=${size} net.ipv4.tcp_max_syn_backlog=${size} && exec "$@"`
  try {
    execFileSync('unshare', ['-n', 'sh', '-c', setUp, 'sh', 'true'], { stdio: 'pipe' })
  } catch (error) {
    const why = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message
    return console.log(`\nstreams: no private network namespace here (${why.split('\n')[0]}): the burst was measured at the machine's accept queue only`)
  }
  console.log(`\nstreams: the burst again in a private network namespace, accept queue ${size} (BENCH_RAISED_QUEUE=0 skips it)`)
  const self = [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  const env = { ...process.env, BENCH_PHASES: 'burst', BENCH_IN_RAISED_QUEUE: '1' }
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('unshare', ['-n', 'sh', '-c', setUp, 'sh', ...self], { env, stdio: 'inherit' })
    child.once('error', reject)
    child.once('exit', resolve)
  })
  if (code !== 0) {
    console.log(`streams: the burst in the private network namespace failed (exit code ${code})`)
    process.exitCode = 1
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  ensureOpenFiles(streamCount + 256)
  const burstsMs = phases.has('burst') ? burstRounds * burstServers.length * (30_000 + streamCount * 3) : 0
  const budgetMs = Number(process.env.BENCH_TIMEOUT_SECONDS || 0) * 1000 || 240_000 + burstsMs + streamCount * 25 + tickCount * (tickGapMs + 500)
  const watchdog = setTimeout(() => {
    console.error(`streams bench exceeded its ${(budgetMs / 1000).toFixed(0)} s budget`)
    process.exit(1)
  }, budgetMs)
  watchdog.unref()

  try {
    if (phases.has('burst')) {
      const targets = { ours: 'streams-server.ts', sdk: 'sdk-streams.ts', raw: 'raw-streams.ts' } as const
      // Every name checked before the first burst, not after some have run.
      const files = burstServers.map((name) => {
        const file = targets[name as keyof typeof targets]
        if (!file) throw new Error(`BENCH_BURST_SERVERS: unknown server ${name}; known: ${Object.keys(targets).join(', ')}`)
        return file
      })
      const rounds = new Map<string, BurstResult[]>(burstServers.map((name) => [name, []]))
      for (let round = 1; round <= burstRounds; round++) {
        for (const [i, name] of burstServers.entries()) {
          const file = files[i]!
          console.log(`streams: burst of ${streamCount} SendStreamingMessage on ${name} (round ${round} of ${burstRounds})`)
          const result = await runBurst(name, file)
          rounds.get(name)!.push(result)
          console.log(`streams: ${name} round ${round}: first-event p99 ${result.p99.toFixed(0)} ms, server CPU ${result.serverCpuMs?.toFixed(2) ?? 'n/a'} ms per stream`)
        }
      }
      printBursts([...rounds.values()])
      if (!inRaisedQueue && acceptQueue() < streamCount && process.env.BENCH_RAISED_QUEUE !== '0') await burstInRaisedQueue()
    }
    if (!phases.has('fanout')) return
    server = await startServer()
    console.log(`streams: warm-up with ${Math.min(warmupStreams, streamCount)} streams`)
    const warmup = await runRound('warmup', Math.min(warmupStreams, streamCount), Math.min(10, taskCount), 3)
    // A server that cannot serve a few streams end to end is not measured.
    if (warmup.opened < warmup.streams || warmup.completed < warmup.streams || warmup.deliveries < warmup.expected) {
      throw new Error(`warm-up failed: ${warmup.opened} opened, ${warmup.completed} completed of ${warmup.streams}; ${warmup.failures.slice(0, 3).join(' | ')}`)
    }
    console.log(`streams: ${streamCount} streams over ${taskCount} tasks, ${tickCount} ticks`)
    const result = await runRound('measure', streamCount, taskCount, tickCount)
    console.log()
    console.log(`SubscribeToTask SSE streams (Node ${process.version}, ${server.child.pid ? `server pid ${server.child.pid}` : ''})`)
    printReport(result)
    const ok = result.opened === result.streams && result.completed === result.streams && result.deliveries === result.expected
    if (!ok) process.exitCode = 1
  } finally {
    if (server) await stopServer(server)
    clearTimeout(watchdog)
  }
}

// No child outlives the driver, however it exits.
process.once('exit', () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exit(1)
})
