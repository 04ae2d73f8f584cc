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
const { createExchange, defineSkill } = await import(process.env.SEND_CPU_RUNTIME ?? '../packages/runtime/dist/index.js')
const { doneSkill } = await import('./servers/done-skill.mjs')

const sends = Number(process.argv[2] ?? 2000)
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
  const body = Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id: n, method: 'SendMessage', params: { message: { messageId: `bench-${n}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } } }),
  )
  return {
    method: 'POST',
    url: '/a2a',
    headers: { ...headers, 'content-length': String(body.length) },
    socket: {},
    complete: true,
    readableDidRead: false,
    readableEnded: false,
    readableLength: body.length,
    read: () => body,
  }
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
    },
    once() {},
  }
}

async function send(count) {
  for (let i = 0; i < count; i += CONNECTIONS) {
    const batch = []
    for (let j = 0; j < CONNECTIONS && i + j < count; j++) batch.push(exchange.handle(request(), response()))
    await Promise.all(batch)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

await send(WARMUP)
await send(sends)
if (completed !== WARMUP + sends) throw new Error(`${completed} of ${WARMUP + sends} sends completed`)
await exchange.shutdown({ timeoutMs: 100 })
console.log(`${sends} sends after ${WARMUP} warm-up`)
process.exit(0)
