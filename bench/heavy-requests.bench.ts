/**
 * Heavy requests beside a light one: for each kind of worst-case request (the largest the 1 MiB
 * body cap lets through), a few callers send it in a loop while another caller sends small GetTask
 * requests one after another; the light caller's latency shows whether one request stalls the
 * others. Our exchange and the official SDK's DefaultRequestHandler, each in its own process.
 *
 *   npm run bench:heavy-requests                  # 3 s per kind and server, 2 heavy callers
 *   BENCH_SECONDS=5 BENCH_HEAVY_CALLERS=8 npm run bench:heavy-requests
 *   BENCH_KINDS=ListTasks,valid BENCH_SERVER_ARGS=--cpu-prof npm run bench:heavy-requests   # a profile of some kinds
 *
 * Target: the light p99 stays under 50 ms on our server while every heavy kind runs.
 */
import { Agent, request as httpRequest } from 'node:http'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { positiveInt } from './load/env.js'
import { runtimeFrom, spawnServer, stopProcess } from './load/server-process.js'
import { BENCH_TOKEN, LIGHT_TOKEN } from './servers/shared.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const seconds = positiveInt('BENCH_SECONDS', 3)
const heavyCallers = positiveInt('BENCH_HEAVY_CALLERS', 2)
// Bodies are built before the clock starts, so the driver's own work does not delay the light caller.
const BODIES_PER_KIND = 64
const BODY_CAP = 1024 * 1024 - 4096

let counter = 0
const messageId = () => `heavy-${process.pid}-${++counter}`
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
const send = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  rpc('SendMessage', { message: { messageId: messageId(), role: 'ROLE_USER', parts: [{ text: 'x' }], ...message }, ...extra })
/** `filler(n)` repeated to just under the body cap, as raw JSON text inside `wrap`. */
const fill = (wrap: (inner: string) => string, unit: string, join = ''): string => {
  const room = BODY_CAP - wrap('').length
  return wrap(
    Array(Math.floor(room / (unit.length + join.length)))
      .fill(unit)
      .join(join),
  )
}
const sendText = (messageJson: string) => `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"${messageId()}","role":"ROLE_USER",${messageJson}}}}`

/** Each kind's body; every call builds a fresh one (a new messageId where one is sent). */
const ALL_KINDS: { name: string; body: () => string }[] = [
  { name: 'nesting (1 MiB of [[[…)', body: () => sendText(`"parts":[{"text":"x"}],"metadata":{"d":${'['.repeat(BODY_CAP / 2 - 200)}${']'.repeat(BODY_CAP / 2 - 200)}}`) },
  { name: 'parts (1 MiB of {})', body: () => fill((inner) => sendText(`"parts":[${inner}]`), '{}', ',') },
  {
    name: 'metadata keys',
    body: () =>
      fill((inner) => sendText(`"parts":[{"text":"x"}],"metadata":{${inner}}`), '"k0000000":0', ',').replace(
        /"k0000000":0/g,
        () => `"k${String(++counter).padStart(7, '0').slice(-7)}":0`,
      ),
  },
  { name: 'long messageId', body: () => sendText(`"messageId":"${'i'.repeat(BODY_CAP - 200)}","parts":[{"text":"x"}]`) },
  { name: 'NUL in 1 MiB text', body: () => send({ parts: [{ text: `${'t'.repeat(BODY_CAP - 300)}\u0000` }] }) },
  { name: 'valid 1 MiB text', body: () => send({ parts: [{ text: 't'.repeat(BODY_CAP - 300) }] }) },
  { name: 'ListTasks of large tasks', body: () => rpc('ListTasks', { pageSize: 100, includeArtifacts: true }) },
]

// BENCH_KINDS: only the kinds whose name contains one of these comma-separated words.
const only = (process.env.BENCH_KINDS ?? '')
  .split(',')
  .map((word) => word.trim())
  .filter(Boolean)
const KINDS = only.length > 0 ? ALL_KINDS.filter((kind) => only.some((word) => kind.name.includes(word))) : ALL_KINDS

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** One request; a connection the server reset (after a 413, say) counts as an answer of 0 bytes. */
function post(port: number, body: string | Buffer, token: string): Promise<{ ms: number; bytes: number; status: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/a2a',
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}`, 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        let bytes = 0
        response.on('data', (chunk: Buffer) => (bytes += chunk.length))
        response.on('end', () => resolve({ ms: performance.now() - started, bytes, status: response.statusCode ?? 0 }))
      },
    )
    req.on('error', () => resolve({ ms: performance.now() - started, bytes: 0, status: 0 }))
    req.end(body)
  })
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

interface Row {
  kind: string
  lightP50: number
  lightP99: number
  lightMax: number
  heavyPerSecond: number
  heavyP50: number
  answerBytes: number
  /** HTTP statuses of the heavy answers (0: connection reset). */
  statuses: string
}

/** The light caller's latencies beside `kind` in a loop from the heavy callers (none for the baseline). */
async function measure(port: number, lightTaskId: string, kind: (typeof KINDS)[number] | undefined): Promise<Row> {
  const bodies = kind ? Array.from({ length: BODIES_PER_KIND }, () => Buffer.from(kind.body())) : []
  let next = 0
  const until = performance.now() + seconds * 1000
  const heavy: number[] = []
  let answerBytes = 0
  const statuses = new Map<number, number>()
  const heavyLoop = async () => {
    while (performance.now() < until) {
      // Past the pool, bodies repeat: a repeated messageId is answered from the first task, still a full request.
      const reply = await post(port, bodies[next++ % bodies.length]!, BENCH_TOKEN)
      heavy.push(reply.ms)
      answerBytes = Math.max(answerBytes, reply.bytes)
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
    }
  }
  const light: number[] = []
  const lightBody = Buffer.from(rpc('GetTask', { id: lightTaskId }))
  const lightLoop = async () => {
    while (performance.now() < until) light.push((await post(port, lightBody, LIGHT_TOKEN)).ms)
  }
  await Promise.all([...Array.from({ length: kind ? heavyCallers : 0 }, heavyLoop), lightLoop()])
  light.sort((a, b) => a - b)
  heavy.sort((a, b) => a - b)
  return {
    kind: kind?.name ?? 'baseline (no heavy caller)',
    lightP50: percentile(light, 0.5),
    lightP99: percentile(light, 0.99),
    lightMax: light.at(-1) ?? NaN,
    heavyPerSecond: heavy.length / seconds,
    heavyP50: percentile(heavy, 0.5),
    answerBytes,
    statuses: [...statuses].map(([status, n]) => `${status}×${n}`).join(' '),
  }
}

async function run(name: string, script: string): Promise<Row[]> {
  const server = await spawnServer(name, script, { cwd: root })
  try {
    const lightTask = JSON.parse(await fetchText(server.port, send({ parts: [{ text: 'light' }] }), LIGHT_TOKEN)).result
    const lightTaskId: string = lightTask.task?.id ?? lightTask.id
    // Large tasks for ListTasks: 24 of ~1 MiB each, owned by the heavy caller.
    for (let i = 0; i < 24; i++) await post(server.port, send({ parts: [{ text: 't'.repeat(BODY_CAP - 300) }] }), BENCH_TOKEN)
    const rows: Row[] = [await measure(server.port, lightTaskId, undefined)]
    for (const kind of KINDS) rows.push(await measure(server.port, lightTaskId, kind))
    return rows
  } finally {
    await stopProcess(server.child)
  }
}

async function fetchText(port: number, body: string, token: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/a2a`, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
  })
  return response.text()
}

const ours = await run('ours', 'bench/servers/ours.ts')
const sdk = await run('sdk', 'bench/servers/sdk.ts')
const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '-')
const size = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`)
console.log(
  `\nlight GetTask from a second caller while ${heavyCallers} callers send each heavy kind (${seconds} s each; runtime from ${runtimeFrom}; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)})`,
)
console.log(['kind', 'ours light p50/p99/max', 'sdk light p50/p99/max', 'ours heavy/s (p50)', 'sdk heavy/s (p50)', 'ours/sdk largest answer', 'ours/sdk statuses'].join(' | '))
ours.forEach((row, i) => {
  const other = sdk[i]!
  console.log(
    [
      row.kind,
      `${ms(row.lightP50)} / ${ms(row.lightP99)} / ${ms(row.lightMax)}`,
      `${ms(other.lightP50)} / ${ms(other.lightP99)} / ${ms(other.lightMax)}`,
      `${row.heavyPerSecond.toFixed(1)} (${ms(row.heavyP50)})`,
      `${other.heavyPerSecond.toFixed(1)} (${ms(other.heavyP50)})`,
      `${size(row.answerBytes)} / ${size(other.answerBytes)}`,
      `${row.statuses || '-'} / ${other.statuses || '-'}`,
    ].join(' | '),
  )
})
const worst = Math.max(...ours.map((row) => row.lightP99).filter(Number.isFinite))
console.log(`\nours: worst light p99 ${ms(worst)} (target < 50 ms) ${worst < 50 ? 'met' : 'NOT met'}`)
agent.destroy()
