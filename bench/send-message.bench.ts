/**
 * SendMessage throughput: our exchange vs the official SDK's DefaultRequestHandler, both on
 * Express 5, same request, same trivial work (task → one artifact → completed), over each
 * binding: JSON-RPC (`POST /a2a`) and HTTP+JSON (`POST <rest base>/message:send`).
 *
 *   npm run bench                                  # 2 s warm-up + 10 s per server, 32 connections
 *   BENCH_SECONDS=5 BENCH_CONNECTIONS=64 npm run bench:send-message
 *
 * Each server runs in its own child process so the load generator does not compete for its event
 * loop. The load comes from wrk when it is installed (`apt-get install wrk`: cheap on the shared
 * cores, so the server is what saturates), else from autocannon; BENCH_LOAD=autocannon forces it.
 */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { runWrk, wrkAvailable } from './load/wrk.js'
import { BENCH_TOKEN } from './servers/shared.js'
import { cpuMs, positiveInt } from './load/env.js'
import { spawnServer, stopProcess } from './load/server-process.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const seconds = positiveInt('BENCH_SECONDS', 10)
const warmupSeconds = positiveInt('BENCH_WARMUP_SECONDS', 2)
const connections = positiveInt('BENCH_CONNECTIONS', 32)

const headers = {
  'Content-Type': 'application/json',
  'A2A-Version': '1.0',
  Authorization: `Bearer ${BENCH_TOKEN}`,
}

type Binding = 'JSON-RPC' | 'HTTP+JSON'

// messageId is an idempotency key per owner on our server, so every request needs a fresh one.
let counter = 0
const runId = `${process.pid}-${Date.now()}`
function requestBody(binding: Binding): string {
  const n = ++counter
  const params = { message: { messageId: `bench-${runId}-${n}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } }
  return JSON.stringify(binding === 'JSON-RPC' ? { jsonrpc: '2.0', id: n, method: 'SendMessage', params } : params)
}

/** A 200 that is not a completed task (a JSON-RPC error, a paused task) counts as an error. */
const isCompleted = (body: string) => body.includes('"TASK_STATE_COMPLETED"') && !body.includes('"error":')

interface Target {
  name: string
  binding: Binding
  child: ChildProcess
  endpoint: string
}

interface Row {
  name: string
  binding: Binding
  rps: number
  p50: number
  p99: number
  errors: number
  requests: number
  /** Server CPU per request; steadier than req/s when neighbours share the cores. */
  cpuUsPerRequest: number | undefined
}


/** Spawns `bench/servers/<file>`, waits until it listens, and answers its target on each binding. */
async function startServer(name: string, file: string): Promise<{ child: ChildProcess; targets: Target[] }> {
  const { child, port } = await spawnServer(name, fileURLToPath(new URL(`./servers/${file}`, import.meta.url)), { cwd: root })
  const base = `http://127.0.0.1:${port}/a2a`
  return {
    child,
    targets: [
      { name, binding: 'JSON-RPC', child, endpoint: base },
      { name, binding: 'HTTP+JSON', child, endpoint: `${base}/rest/message:send` },
    ],
  }
}

/** One real request before measuring: a server that does not complete the task is not benchmarked. */
async function verify(target: Target): Promise<void> {
  const response = await fetch(target.endpoint, { method: 'POST', headers, body: requestBody(target.binding) })
  const text = await response.text()
  let state: unknown
  try {
    const body = JSON.parse(text)
    state = (target.binding === 'JSON-RPC' ? body?.result : body)?.task?.status?.state
  } catch {
    // Reported below with the raw text.
  }
  if (response.status !== 200 || state !== 'TASK_STATE_COMPLETED' || !isCompleted(text)) {
    throw new Error(`${target.name} (${target.binding}) did not answer SendMessage with a COMPLETED task: HTTP ${response.status} ${text.slice(0, 500)}`)
  }
}

/** Runs autocannon; `failed` counts responses that are not a 200 carrying a COMPLETED task. */
function load(target: Target, duration: number): Promise<{ result: autocannon.Result; failed: number }> {
  let failed = 0
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.endpoint,
        method: 'POST',
        headers,
        connections,
        duration,
        timeout: 10,
        requests: [{
          method: 'POST',
          setupRequest: (request) => ({ ...request, body: requestBody(target.binding) }),
          // Counted here rather than with verifyBody, which would count a non-2xx twice.
          onResponse: (status, body) => {
            if (status !== 200 || !isCompleted(body)) failed++
          },
        }],
      },
      (error, result) => (error ? reject(error) : resolve({ result, failed })),
    )
  })
}

const useWrk = process.env.BENCH_LOAD !== 'autocannon' && wrkAvailable()

async function measure(target: Target): Promise<Row> {
  await verify(target)
  const label = `${target.name} ${target.binding}`
  if (useWrk) {
    console.log(`${label}: warm-up ${warmupSeconds} s, then ${seconds} s with ${connections} connections (wrk)`)
    const rest = target.binding === 'HTTP+JSON'
    runWrk(target.endpoint, headers, connections, warmupSeconds, rest)
    const cpuBefore = cpuMs(target.child.pid)
    const result = runWrk(target.endpoint, headers, connections, seconds, rest)
    const cpuAfter = cpuMs(target.child.pid)
    const cpuUsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && result.requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / result.requests : undefined
    return { name: target.name, binding: target.binding, ...result, cpuUsPerRequest }
  }
  console.log(`${label}: warm-up ${warmupSeconds} s, then ${seconds} s with ${connections} connections`)
  await load(target, warmupSeconds)
  const cpuBefore = cpuMs(target.child.pid)
  const { result, failed } = await load(target, seconds)
  const cpuAfter = cpuMs(target.child.pid)
  const requests = result.latency.totalCount
  return {
    name: target.name,
    binding: target.binding,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // Bad responses plus connection errors and timeouts (which produce no response).
    errors: failed + result.errors + result.timeouts,
    requests,
    cpuUsPerRequest: cpuBefore !== undefined && cpuAfter !== undefined && requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / requests : undefined,
  }
}

function printTable(rows: Row[]): void {
  const cells = [
    ['server', 'binding', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'requests', 'server cpu µs/req'],
    ...rows.map((row) => [
      row.name,
      row.binding,
      row.rps.toFixed(0),
      row.p50.toFixed(1),
      row.p99.toFixed(1),
      String(row.errors),
      String(row.requests),
      row.cpuUsPerRequest === undefined ? 'n/a' : row.cpuUsPerRequest.toFixed(0),
    ]),
  ]
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)))
  const line = (row: string[]) => row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  console.log(line(cells[0]!))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const row of cells.slice(1)) console.log(line(row))
}

async function main(): Promise<void> {
  const children: ChildProcess[] = []
  const bindings: Binding[] = ['JSON-RPC', 'HTTP+JSON']
  // Hard ceiling so a wedged server or load run cannot hang CI.
  const budgetMs = 2 * bindings.length * (warmupSeconds + seconds) * 1000 + 90_000
  const watchdog = setTimeout(() => {
    console.error(`bench exceeded its ${budgetMs / 1000} s budget`)
    for (const child of children) child.kill('SIGKILL')
    process.exit(1)
  }, budgetMs)
  watchdog.unref()

  try {
    const ours = await startServer('ours', 'ours.ts')
    const sdk = await startServer('sdk', 'sdk.ts')
    children.push(ours.child, sdk.child)
    const rows: Row[] = []
    // One at a time, ours and the SDK's in turn per binding: an idle server costs nothing.
    for (const i of bindings.keys()) for (const target of [ours.targets[i]!, sdk.targets[i]!]) rows.push(await measure(target))
    console.log()
    console.log(`SendMessage, ${connections} connections, ${seconds} s after ${warmupSeconds} s warm-up, load from ${useWrk ? 'wrk' : 'autocannon'} (Node ${process.version})`)
    printTable(rows)
    console.log()
    for (const binding of bindings) {
      const [mine, theirs] = ['ours', 'sdk'].map((name) => rows.find((row) => row.name === name && row.binding === binding))
      if (mine && theirs && theirs.rps > 0) console.log(`${binding}: ours/sdk throughput ${(mine.rps / theirs.rps).toFixed(2)}x`)
      if (mine?.cpuUsPerRequest && theirs?.cpuUsPerRequest) {
        console.log(`${binding}: ours/sdk server CPU per request ${(mine.cpuUsPerRequest / theirs.cpuUsPerRequest).toFixed(2)}x (lower is cheaper)`)
      }
    }
  } finally {
    await Promise.all(children.map(stopProcess))
    clearTimeout(watchdog)
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error)
  process.exit(1)
})
