/**
 * Streams bench target: our exchange with a long-running `hold` skill. Prints `{"port":N}` on
 * stdout once listening; runs until killed. Started by streams.bench.ts in its own process so the
 * SSE clients do not share this event loop.
 *
 * Bench-only control endpoints beside the A2A one (no auth: the server listens on 127.0.0.1 only):
 *   POST /bench/tick    every held task appends one artifact chunk carrying its emit time
 *   POST /bench/finish  every held task completes
 *   GET  /bench/memory  process.memoryUsage(), after a full GC when started with --expose-gc
 *   POST /bench/profile/start, /bench/profile/stop?name=N  a CPU profile of what runs in between,
 *        written to BENCH_PROFILE_DIR/N.cpuprofile (a burst alone, without start-up and warm-up)
 *
 * Mounted as generated apps mount it (a2aListener in front of an Express app holding the control
 * routes); BENCH_HTTP=node serves everything on bare node:http instead. BENCH_BACKLOG sets the
 * listen backlog (default the runtime's, DEFAULT_LISTEN_BACKLOG).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import express from 'express'
import { a2aListener, createExchange, createHttpServer, defineSkill } from '@a2a-agent/runtime'
import { holdSkill } from './hold-skill.mjs'
import { listenBacklog, stopWithDriver, wallMs } from './shared.js'

const holds = holdSkill(defineSkill, wallMs)

const numberEnv = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined)

const exchange = createExchange({
  skills: [holds.skill],
  // `Bearer <owner>`: the driver spreads tasks and streams over owners by token.
  resolvePrincipal: (request) => {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
    return match ? { owner: match[1]! } : undefined
  },
  card: { name: 'Bench (streams)', description: 'SSE fan-out target', version: '0.0.0' },
  // The bench measures the streams themselves, not the per-owner caps.
  maxStreamSeatsPerOwner: -1,
  maxConcurrentRunsPerOwner: -1,
  // Held tasks must outlive the whole run, however long opening 10k streams takes.
  taskTimeoutMs: 60 * 60_000,
  ...(numberEnv('BENCH_KEEPALIVE_MS') ? { streamKeepAliveMs: numberEnv('BENCH_KEEPALIVE_MS')! } : {}),
})

let profiler: Session | undefined

/** The control endpoints, on plain node:http types so either front below can serve them. */
const control: Record<string, (request: IncomingMessage, response: ServerResponse) => void | Promise<void>> = {
  'POST /bench/tick': async (_request, response) => {
    const started = wallMs()
    const writes = await holds.tick()
    const results = await Promise.allSettled(writes)
    sendJson(response, { tasks: writes.length, failed: results.filter((r) => r.status === 'rejected').length, fanOutMs: wallMs() - started })
  },
  'POST /bench/finish': (_request, response) => {
    sendJson(response, { tasks: holds.finish() })
  },
  'POST /bench/profile/start': async (_request, response) => {
    profiler ??= new Session()
    profiler.connect()
    await profiler.post('Profiler.enable')
    // A sample every 100 µs (the default is 1 ms): a burst costs a few hundred µs per stream.
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 })
    await profiler.post('Profiler.start')
    sendJson(response, { profiling: true })
  },
  'POST /bench/profile/stop': async (request, response) => {
    const { profile } = await profiler!.post('Profiler.stop')
    profiler!.disconnect()
    const name = new URL(request.url!, 'http://localhost').searchParams.get('name') ?? 'burst'
    const file = join(process.env.BENCH_PROFILE_DIR || '.', `${name}.cpuprofile`)
    writeFileSync(file, JSON.stringify(profile))
    sendJson(response, { file })
  },
  'GET /bench/memory': (_request, response) => {
    // A full GC first, so heapUsed is live data rather than whatever the last scavenge left.
    ;(globalThis as { gc?: () => void }).gc?.()
    sendJson(response, { ...process.memoryUsage(), held: holds.held, activeRuns: exchange.activeRuns })
  },
}

function sendJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body))
}

/**
 * As an app would mount it by default; BENCH_HTTP=node serves the same on bare node:http, which
 * separates what the mount costs per stream from what the exchange costs.
 */
function front(): RequestListener {
  if (process.env.BENCH_HTTP === 'node') {
    return (request, response) => {
      const path = request.url?.split('?')[0]
      const handler = control[`${request.method} ${path}`]
      if (handler) return void handler(request, response)
      if (path === exchange.path) return void exchange.handle(request, response)
      response.writeHead(404).end()
    }
  }
  const app = express()
  for (const [route, handler] of Object.entries(control)) {
    const [method, path] = route.split(' ') as [string, string]
    app[method === 'GET' ? 'get' : 'post'](path, handler)
  }
  return a2aListener(exchange, app)
}

const server = createHttpServer(front(), { listenBacklog: listenBacklog() }).listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }))
})

stopWithDriver(server, () => exchange.shutdown({ timeoutMs: 1000 }))
