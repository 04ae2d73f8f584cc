/**
 * SendMessage throughput: our exchange vs the official SDK's DefaultRequestHandler, both on
 * Express 5, same request, same trivial work (task → one artifact → completed).
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

// messageId is an idempotency key per owner on our server, so every request needs a fresh one.
let counter = 0
const runId = `${process.pid}-${Date.now()}`
function requestBody(): string {
  const n = ++counter
  return JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    method: 'SendMessage',
    params: { message: { messageId: `bench-${runId}-${n}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  })
}

/** A 200 that is not a completed task (a JSON-RPC error, a paused task) counts as an error. */
const isCompleted = (body: string) => body.includes('"TASK_STATE_COMPLETED"') && !body.includes('"error":')

interface Target {
  name: string
  child: ChildProcess
  endpoint: string
}

interface Row {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
  requests: number
  /** Server CPU per request; steadier than req/s when neighbours share the cores. */
  cpuUsPerRequest: number | undefined
}


/** Spawns `bench/servers/<file>` and waits until it listens. */
async function startServer(name: string, file: string): Promise<Target> {
  const { child, port } = await spawnServer(name, fileURLToPath(new URL(`./servers/${file}`, import.meta.url)), { cwd: root })
  return { name, child, endpoint: `http://127.0.0.1:${port}/a2a` }
}

const stopServer = (target: Target): Promise<void> => stopProcess(target.child)

/** One real request before measuring: a server that does not complete the task is not benchmarked. */
async function verify(target: Target): Promise<void> {
  const response = await fetch(target.endpoint, { method: 'POST', headers, body: requestBody() })
  const text = await response.text()
  let state: unknown
  try {
    state = JSON.parse(text)?.result?.task?.status?.state
  } catch {
    // Reported below with the raw text.
  }
  if (response.status !== 200 || state !== 'TASK_STATE_COMPLETED' || !isCompleted(text)) {
    throw new Error(`${target.name} did not answer SendMessage with a COMPLETED task: HTTP ${response.status} ${text.slice(0, 500)}`)
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
          setupRequest: (request) => ({ ...request, body: requestBody() }),
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
  if (useWrk) {
    console.log(`${target.name}: warm-up ${warmupSeconds} s, then ${seconds} s with ${connections} connections (wrk)`)
    runWrk(target.endpoint, headers, connections, warmupSeconds)
    const cpuBefore = cpuMs(target.child.pid)
    const result = runWrk(target.endpoint, headers, connections, seconds)
    const cpuAfter = cpuMs(target.child.pid)
    const cpuUsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && result.requests > 0 ? ((cpuAfter - cpuBefore) * 1000) / result.requests : undefined
    return { name: target.name, ...result, cpuUsPerRequest }
  }
  console.log(`${target.name}: warm-up ${warmupSeconds} s, then ${seconds} s with ${connections} connections`)
  await load(target, warmupSeconds)
  const cpuBefore = cpuMs(target.child.pid)
  const { result, failed } = await load(target, seconds)
  const cpuAfter = cpuMs(target.child.pid)
  const requests = result.latency.totalCount
  return {
    name: target.name,
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
    ['server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'requests', 'server cpu µs/req'],
    ...rows.map((row) => [
      row.name,
      row.rps.toFixed(0),
      row.p50.toFixed(1),
      row.p99.toFixed(1),
      String(row.errors),
      String(row.requests),
      row.cpuUsPerRequest === undefined ? 'n/a' : row.cpuUsPerRequest.toFixed(0),
    ]),
  ]
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)))
  const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  console.log(line(cells[0]!))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const row of cells.slice(1)) console.log(line(row))
}

async function main(): Promise<void> {
  const targets: Target[] = []
  // Hard ceiling so a wedged server or load run cannot hang CI.
  const budgetMs = 2 * (warmupSeconds + seconds) * 1000 + 90_000
  const watchdog = setTimeout(() => {
    console.error(`bench exceeded its ${budgetMs / 1000} s budget`)
    for (const target of targets) target.child.kill('SIGKILL')
    process.exit(1)
  }, budgetMs)
  watchdog.unref()

  try {
    targets.push(await startServer('ours', 'ours.ts'))
    targets.push(await startServer('sdk', 'sdk.ts'))
    const rows: Row[] = []
    // One at a time: the idle server costs nothing while the other is under load.
    for (const target of targets) rows.push(await measure(target))
    console.log()
    console.log(`SendMessage, ${connections} connections, ${seconds} s after ${warmupSeconds} s warm-up, load from ${useWrk ? 'wrk' : 'autocannon'} (Node ${process.version})`)
    printTable(rows)
    const [ours, sdk] = rows
    if (ours && sdk && sdk.rps > 0) console.log(`\nours/sdk throughput: ${(ours.rps / sdk.rps).toFixed(2)}x`)
    if (ours?.cpuUsPerRequest && sdk?.cpuUsPerRequest) {
      console.log(`ours/sdk server CPU per request: ${(ours.cpuUsPerRequest / sdk.cpuUsPerRequest).toFixed(2)}x (lower is cheaper)`)
    }
  } finally {
    await Promise.all(targets.map(stopServer))
    clearTimeout(watchdog)
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error)
  process.exit(1)
})
