/**
 * The exchange's own cost per SendMessage, deterministically: `exchange.handle` on an in-process
 * request and response (no socket, no HTTP parser), on the built runtime, the bench server's skill
 * and options. Wall-clock figures are noisy on a shared machine; instruction counts are not. Count
 * two runs and take the difference, which leaves out start-up and warm-up:
 *
 *   npm run build -w packages/runtime
 *   for n in 2000 6000; do valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n node --single-threaded bench/send-cpu.mjs $n; done
 *   # instructions per send = (Ir of 6000 - Ir of 2000) / 4000 (the "Collected" line of each run)
 *
 * SEND_CPU_RUNTIME=<path to an index.js> runs another build (a copy of dist/ beside it, to compare).
 * Repeat a count: JIT and GC timing move it by 1-2% from run to run.
 *
 * Requests go out as a server takes them: a batch of CONNECTIONS at once, then a turn of the event
 * loop (where run deadlines are armed), as 32 connections of wrk bring them.
 */
const { createExchange, defineSkill, a2aListener } = await import(process.env.SEND_CPU_RUNTIME ?? '../packages/runtime/dist/index.js')
const { doneSkill } = await import('./servers/done-skill.mjs')
const { heldRequest } = await import('./load/held-request.mjs')

const sends = Number(process.argv[2] ?? 2000)
/** `--rest`: HTTP+JSON (`POST /rest/message:send`) instead of JSON-RPC. */
const rest = process.argv.includes('--rest')
/** `--mount=app`: through a2aListener, as generated apps (and bench/servers/ours.ts) mount it; default the bare exchange.handle / handleRest. */
const mount = process.argv.find((arg) => arg.startsWith('--mount='))?.slice('--mount='.length) ?? 'bare'
const WARMUP = 3000
const CONNECTIONS = 32

const done = doneSkill(defineSkill)
const exchange = createExchange({
  skills: [done],
  resolvePrincipal: (request) => (request.headers.authorization === 'Bearer bench-token' ? { owner: 'bench' } : undefined),
  card: { name: 'Bench (ours)', description: 'SendMessage CPU', version: '0.0.0' },
  maxConcurrentRunsPerOwner: -1,
})

const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: 'Bearer bench-token', host: '127.0.0.1' }
let counter = 0

/** The parts of IncomingMessage the JSON-RPC route reads, for a body the parser already holds. */
function request() {
  const n = ++counter
  const params = { message: { messageId: `bench-${n}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } }
  const body = Buffer.from(JSON.stringify(rest ? params : { jsonrpc: '2.0', id: n, method: 'SendMessage', params }))
  return heldRequest(rest ? `${exchange.restPath}/message:send` : '/a2a', headers, body)
}

let completed = 0
/** The parts of ServerResponse an answer uses. */
function response() {
  let text = ''
  return {
    statusCode: 200,
    setHeader() {},
    writeHead(status) {
      this.statusCode = status
      return this
    },
    write(chunk) {
      text += chunk
      return true
    },
    end(chunk) {
      text += chunk ?? ''
      if (this.statusCode === 200 && text.includes('"TASK_STATE_COMPLETED"')) completed++
      else throw new Error(`not a completed task: ${this.statusCode} ${text}`)
      this.done?.()
    },
    once() {},
  }
}

/** How a request is served: the bare exchange, or through the app mount's listener (whose handler's promise it does not hand back). */
const listener = mount === 'app' ? a2aListener(exchange) : undefined
const serve = listener
  ? (req, res) =>
      new Promise((resolve) => {
        res.done = resolve
        listener(req, res)
      })
  : rest
    ? (req, res) => exchange.handleRest(req, res)
    : (req, res) => exchange.handle(req, res)
if (mount !== 'app' && mount !== 'bare') throw new Error(`--mount=${mount}: use app or bare`)

async function send(count) {
  for (let i = 0; i < count; i += CONNECTIONS) {
    const batch = []
    for (let j = 0; j < CONNECTIONS && i + j < count; j++) batch.push(serve(request(), response()))
    await Promise.all(batch)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

await send(WARMUP)
/** `--heap` (with --expose-gc): the heap the sends left behind, per send, after a full collection. */
const heap = process.argv.includes('--heap') && globalThis.gc
const heapBefore = heap && (globalThis.gc(), process.memoryUsage().heapUsed)
await send(sends)
if (heap) {
  globalThis.gc()
  console.log(`${((process.memoryUsage().heapUsed - heapBefore) / sends).toFixed(0)} bytes of heap retained per send`)
}
if (completed !== WARMUP + sends) throw new Error(`${completed} of ${WARMUP + sends} sends completed`)
await exchange.shutdown({ timeoutMs: 100 })
console.log(`${sends} sends after ${WARMUP} warm-up`)
process.exit(0)
