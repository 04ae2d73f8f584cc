/**
 * The exchange's own cost per SendStreamingMessage stream, deterministically: `exchange.handle` on
 * in-process requests and responses (no socket, no HTTP parser), on the built runtime, with the
 * streams bench's `hold` skill and options. A stream counts as open once its response has the
 * snapshot and the WORKING event, as in the burst of streams.bench.ts. Wall-clock figures of the
 * burst are noisy on a shared machine; instruction counts and heap objects are not.
 *
 * Instructions per stream opened: count two runs and take the difference, which leaves out
 * start-up and warm-up (the streams are left open; the process exits once they are):
 *
 *   npm run build -w packages/runtime
 *   for n in 1000 3000; do valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n node --single-threaded bench/stream-cpu.mjs $n; done
 *   # instructions per stream = (Ir of 3000 - Ir of 1000) / 2000 (the "Collected" line of each run)
 *
 * Heap per open stream: `node --expose-gc bench/stream-cpu.mjs 2000 --heap` prints the live heap
 * bytes and objects per open stream (a heap snapshot before and after opening, counted by node
 * type and name; the largest groups are listed), then finishes every stream and checks each ended
 * on COMPLETED.
 *
 * SEND_CPU_RUNTIME=<path to an index.js> runs another build (a copy of dist/ beside it, to compare).
 * Requests come as a server takes a burst of them: a batch of BATCH at once, then a turn of the loop.
 */
import { writeHeapSnapshot } from 'node:v8'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const { createExchange, defineSkill } = await import(process.env.SEND_CPU_RUNTIME ?? '../packages/runtime/dist/index.js')
const { holdSkill } = await import('./servers/hold-skill.mjs')
const { heldRequest } = await import('./load/held-request.mjs')

const streams = Number(process.argv[2] ?? 1000)
const heap = process.argv.includes('--heap')
/** `--keep=<dir>`: the two heap snapshots are kept there (before.heapsnapshot, after.heapsnapshot), for a closer look. */
const keep = process.argv.find((arg) => arg.startsWith('--keep='))?.slice('--keep='.length)
const WARMUP = Number(process.env.STREAM_CPU_WARMUP ?? 3000)
const BATCH = 64
const OWNERS = 10

const holds = holdSkill(defineSkill, () => performance.timeOrigin + performance.now())
const exchange = createExchange({
  skills: [holds.skill],
  resolvePrincipal: (request) => {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
    return match ? { owner: match[1] } : undefined
  },
  card: { name: 'Bench (streams)', description: 'SSE stream cost', version: '0.0.0' },
  maxStreamSeatsPerOwner: -1,
  maxConcurrentRunsPerOwner: -1,
  taskTimeoutMs: 60 * 60_000,
})

let counter = 0

/** A SendStreamingMessage whose body the parser already holds. */
function request() {
  const n = ++counter
  const body = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: n,
      method: 'SendStreamingMessage',
      params: { message: { messageId: `stream-${n}`, role: 'ROLE_USER', parts: [{ text: 'hold' }], metadata: { skill: 'hold' } } },
    }),
  )
  return heldRequest('/a2a', { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer owner-${n % OWNERS}`, host: '127.0.0.1' }, body)
}

let working = 0
let completed = 0
let ended = 0

/** The parts of ServerResponse an SSE stream uses; counts streams with their first two events and streams that ended on COMPLETED. */
class Response {
  statusCode = 200
  headersSent = false
  #text = ''
  #working = false
  #close = []

  setHeader() {}
  writeHead(status) {
    this.statusCode = status
    return this
  }
  flushHeaders() {
    this.headersSent = true
  }
  write(chunk) {
    this.headersSent = true
    this.#take(chunk)
    return true
  }
  end(chunk) {
    this.#take(chunk ?? '')
    ended++
    if (this.#text.includes('"TASK_STATE_COMPLETED"')) completed++
    else throw new Error(`a stream did not end on COMPLETED: ${this.statusCode} ${this.#text.slice(-300)}`)
    for (const listener of this.#close.splice(0)) listener.call(this)
  }
  once(event, listener) {
    if (event === 'close') this.#close.push(listener)
    return this
  }
  on(event, listener) {
    return this.once(event, listener)
  }
  #take(chunk) {
    // Only the last event matters once the stream is working.
    this.#text = this.#working ? String(chunk) : this.#text + chunk
    if (!this.#working && this.#text.includes('"TASK_STATE_WORKING"')) {
      this.#working = true
      working++
    }
  }
}

async function open(count) {
  const target = working + count
  for (let i = 0; i < count; i += BATCH) {
    const batch = []
    for (let j = 0; j < BATCH && i + j < count; j++) batch.push(exchange.handle(request(), new Response()))
    await Promise.all(batch)
    await new Promise((resolve) => setImmediate(resolve))
  }
  while (working < target) await new Promise((resolve) => setImmediate(resolve))
}

async function finishAll() {
  const target = ended + holds.finish()
  while (ended < target) await new Promise((resolve) => setImmediate(resolve))
}

/** Live heap objects by node type and name, and their self sizes, from a heap snapshot. */
function heapCensus(name) {
  ;(globalThis.gc ?? (() => {}))()
  const file = writeHeapSnapshot(join(keep ?? tmpdir(), keep ? `${name}.heapsnapshot` : `stream-cpu-${process.pid}-${name}.heapsnapshot`))
  const snapshot = JSON.parse(readFileSync(file, 'utf8'))
  if (!keep) rmSync(file)
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta
  const width = fields.length
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field))
  const groups = new Map()
  let objects = 0
  let bytes = 0
  const { nodes, strings } = snapshot
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]]
    // Synthetic roots and V8's own hidden and code objects are not the runtime's.
    if (type === 'synthetic' || type === 'hidden' || type === 'code') continue
    const key = `${type} ${type === 'string' || type === 'number' || type === 'concatenated string' || type === 'sliced string' ? '' : strings[nodes[i + nameAt]]}`
    const group = groups.get(key) ?? { count: 0, size: 0 }
    group.count++
    group.size += nodes[i + sizeAt]
    groups.set(key, group)
    objects++
    bytes += nodes[i + sizeAt]
  }
  return { objects, bytes, groups }
}

await open(WARMUP)
await finishAll()
if (heap) {
  const before = heapCensus('before')
  await open(streams)
  const after = heapCensus('after')
  const per = (value) => (value / streams).toFixed(2)
  console.log(
    `${streams} open streams: ${per(after.bytes - before.bytes)} bytes and ${per(after.objects - before.objects)} objects per stream (heap snapshot, V8's hidden and code objects left out)`,
  )
  const grown = [...after.groups]
    .map(([key, group]) => [key, group.count - (before.groups.get(key)?.count ?? 0), group.size - (before.groups.get(key)?.size ?? 0)])
    .filter(([, count]) => count / streams >= 0.5)
    .sort((a, b) => b[1] - a[1])
  for (const [key, count, size] of grown) console.log(`${per(count).padStart(8)} objects ${per(size).padStart(9)} bytes  ${key}`)
  await finishAll()
  if (completed !== WARMUP + streams) throw new Error(`${completed} of ${WARMUP + streams} streams ended on COMPLETED`)
} else {
  await open(streams)
}
console.log(`${streams} streams opened after ${WARMUP} warm-up`)
process.exit(0)
