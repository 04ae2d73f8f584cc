/**
 * Bench target: our exchange with one trivial skill. Prints `{"port":N}` on stdout once
 * listening; runs until killed. Started by send-message.bench.ts in its own process so the load
 * generator does not share this event loop. Mounted as generated apps mount it by default
 * (a2aListener in front of an Express app); BENCH_HTTP=router mounts a2aRouter inside the app
 * instead (what routes behind app middleware cost), BENCH_HTTP=node calls the exchange
 * straight from node:http, which leaves only its own cost, BENCH_HTTP=grpc serves the gRPC
 * binding alone (serveGrpc), printing its port, and BENCH_HTTP=grpc-js the same service on a grpc-js
 * Server (a2aServiceHandlers).
 */
import type { RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { pino } from 'pino'
import { a2aListener, createExchange, createHttpServer, defineSkill, setDefaultLogger } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
import { BENCH_TOKEN, LIGHT_TOKEN } from './shared.js'
import { doneSkill } from './done-skill.mjs'

const done = doneSkill(defineSkill)

// BENCH_LOG=<level>: the runtime logs through pino at that level, as serve() sets it, to /dev/null
// (info: one line per request; warn: request lines off, what an app at LOG_LEVEL=warn pays).
if (process.env.BENCH_LOG) setDefaultLogger(pino({ level: process.env.BENCH_LOG }, pino.destination('/dev/null')))

const exchange = createExchange({
  skills: [done],
  // Two callers: the bench token and, for the heavy-requests bench, a second owner sending light requests.
  resolvePrincipal: (request) => {
    const authorization = request.headers.authorization
    if (authorization === `Bearer ${BENCH_TOKEN}`) return { owner: 'bench' }
    return authorization === `Bearer ${LIGHT_TOKEN}` ? { owner: 'light' } : undefined
  },
  card: { name: 'Bench (ours)', description: 'SendMessage throughput target', version: '0.0.0' },
  // The bench measures throughput, not the per-owner concurrency cap.
  maxConcurrentRunsPerOwner: -1,
})

if (process.env.BENCH_HTTP === 'grpc-js') {
  // The same service on a grpc-js Server, as an app that runs one mounts it: what serveGrpc's own transport saves.
  const { Server, ServerCredentials } = await import('@grpc/grpc-js')
  const { a2aServiceDefinition, a2aServiceHandlers } = await import('@a2a-agent/runtime/grpc')
  const server = new Server({ 'grpc.enable_channelz': 0 })
  server.addService(a2aServiceDefinition(), a2aServiceHandlers(exchange.bindingOptions))
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error
    console.log(JSON.stringify({ port }))
  })
} else if (process.env.BENCH_HTTP === 'grpc') {
  const { serveGrpc } = await import('@a2a-agent/runtime/grpc')
  const grpc = await serveGrpc(exchange, { port: 0, host: '127.0.0.1' })
  console.log(JSON.stringify({ port: grpc.port }))
  process.once('SIGTERM', async () => {
    await exchange.shutdown({ timeoutMs: 1000 })
    await grpc.close({ timeoutMs: 1000 })
    process.exit(0)
  })
} else {
  serveHttp()
}

function serveHttp(): void {
  const bare: RequestListener = (request, response) => {
    const path = (request.url ?? '/').split('?')[0]!
    if (path === exchange.path) return void exchange.handle(request, response)
    if (exchange.servesRest(path)) return void exchange.handleRest(request, response)
    response.writeHead(404).end()
  }
  const app = express()
  app.disable('x-powered-by')
  const mounts: Record<string, () => RequestListener> = {
    app: () => a2aListener(exchange, app),
    router: () => app.use(a2aRouter(exchange)),
    node: () => bare,
  }
  const mount = mounts[process.env.BENCH_HTTP || 'app']
  if (!mount) throw new Error(`BENCH_HTTP=${process.env.BENCH_HTTP}: use app, router or node`)
  const server = createHttpServer(mount()).listen(0, '127.0.0.1', () => {
    console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }))
  })

  process.once('SIGTERM', async () => {
    await exchange.shutdown({ timeoutMs: 1000 })
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}
