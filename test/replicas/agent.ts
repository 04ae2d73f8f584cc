/**
 * One replica for the multi-process tests: examples/invoices' entity tools, overdue skill, API
 * keys and task store of choice, in one exchange at /a2a with extra skills, on the database DATABASE_URL
 * names. `hold` marks its task WORKING and waits to be canceled, `queue` waits without a write (its
 * task stays SUBMITTED); `tick` writes timestamped status updates (bench/replicas.bench.ts); `slow` works for SLOW_MS and
 * then completes, logging each run's start on stdout as `{"ran":"<taskId>"}` (a task that runs
 * twice shows up twice, and with RUN_TABLE each run also inserts a row in that table); `hold`
 * prints `{"cut":"<taskId>"}` once its run is cut; `ask` pauses for a name, then writes three
 * status updates and completes; `spin` computes for SPIN_MS without awaiting, then completes; `done` completes at once. MAX_RUNS caps runs per owner. RUN_LEASE_MS and REPLICA_ID set the run
 * leases; STORE=prisma keeps the tasks through the app's Prisma client instead of PostgresStore /
 * SqliteStore (MysqlStore on a mysql:// URL: the A2A tables only, without examples/invoices' entities and
 * overdue skill); STREAM_POLL_MS sets how often streams read the store without notifications; HOST=1 serves the agent behind a multi-agent host (createAgentHost, a2aListener) at /a2a/replica. Prints `{"port":N,"path":"<JSON-RPC path>"}` once listening; SIGTERM shuts down as main.ts does.
 * @module
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { a2aListener, createAgentHost, createExchange, createHttpServer, createToolRegistry, defineSkill } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
import { MysqlStore, PrismaStore, apiKeyResolver, prepareSqlite } from '@a2a-agent/runtime/prisma'
import { PrismaMariaDb } from '@prisma/adapter-mariadb'
import { PrismaClient as MysqlClient } from '../../packages/runtime/src/store/prisma/__fixture__/mysql/generated/client/client.js'
import { entityTools } from '../../examples/invoices/src/a2a/entities.gen.js'
import { createDb, createStore, isPostgresql } from '../../examples/invoices/src/db.js'
import { overdue } from '../../examples/invoices/src/overdue.js'

const url = process.env.DATABASE_URL!
const slowMs = Number(process.env.SLOW_MS ?? 1000)
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`)

const hold = defineSkill({
  id: 'hold',
  description: 'Works until canceled.',
  handler: async (ctx) => {
    await ctx.working('holding')
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
    say({ cut: ctx.taskId })
  },
})
const slow = defineSkill({
  id: 'slow',
  description: 'Works for a while, then completes.',
  handler: async (ctx) => {
    say({ ran: ctx.taskId })
    // The run's side effect, in the database: a task run twice (on any replica) leaves two rows.
    if (process.env.RUN_TABLE) await db.$executeRawUnsafe(`INSERT INTO "${process.env.RUN_TABLE}" ("taskId", "replica") VALUES ($1, $2)`, ctx.taskId, process.env.REPLICA_ID ?? '')
    await ctx.working('started')
    await new Promise((resolve) => setTimeout(resolve, slowMs))
    await ctx.complete('finished')
  },
})
const queue = defineSkill({
  id: 'queue',
  description: 'Stays submitted until canceled: a run that has not begun its work.',
  handler: (ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())),
})
const tick = defineSkill({
  id: 'tick',
  description: 'TICKS status updates, one every TICK_MS, each saying when it was written (epoch ms), then completes.',
  handler: async (ctx) => {
    for (let i = 0; i < Number(process.env.TICKS ?? 20); i++) {
      await new Promise((resolve) => setTimeout(resolve, Number(process.env.TICK_MS ?? 100)))
      await ctx.working(String(Date.now()))
    }
    await ctx.complete('ticked')
  },
})
const ask = defineSkill({
  id: 'ask',
  description: 'Asks for a name, then greets it in three status updates and completes.',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput('name?')
    for (const step of ['one', 'two', 'three']) await ctx.working(`${step} ${process.env.REPLICA_ID}`)
    await ctx.complete(`hello ${ctx.text}`)
  },
})
const spin = defineSkill({
  id: 'spin',
  description: 'Computes for SPIN_MS without awaiting anything, then completes: its first turn lasts that long.',
  handler: (ctx) => {
    const until = Date.now() + Number(process.env.SPIN_MS ?? 0)
    while (Date.now() < until);
    return ctx.complete('spun')
  },
})
const done = defineSkill({ id: 'done', description: 'Completes at once.', handler: async (ctx) => ctx.complete('ok') })

const mysql = /^(mysql|mariadb):\/\//.test(url)
const db = mysql ? mysqlClient(url) : createDb(url)
if (!mysql && !isPostgresql(url)) await prepareSqlite(db)
const store = process.env.STORE === 'prisma' ? new PrismaStore(db) : mysql ? new MysqlStore(url) : createStore(url)
const options = {
  skills: [...(mysql ? [] : [overdue(db)]), hold, queue, slow, tick, ask, spin, done],
  tools: createToolRegistry(mysql ? [] : entityTools(db)),
  store,
  card: { name: 'Replica', description: 'examples/invoices as one of several replicas', version: '0.0.0' },
  maxConcurrentRunsPerOwner: Number(process.env.MAX_RUNS ?? -1),
  // Every task the tests made stays readable: none is trimmed by retention.
  settledTaskRetention: -1,
  streamPollMs: Number(process.env.STREAM_POLL_MS ?? 200),
  ...(process.env.RUN_LEASE_MS ? { runLeaseMs: Number(process.env.RUN_LEASE_MS) } : {}),
  ...(process.env.REPLICA_ID ? { replicaId: process.env.REPLICA_ID } : {}),
}
/** The runtime's MySQL test client (A2A models only), typed as the app's: the store and API keys use only those. */
function mysqlClient(url: string): ReturnType<typeof createDb> {
  const parsed = new URL(url)
  const adapter = new PrismaMariaDb({
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1),
  })
  return new MysqlClient({ adapter }) as unknown as ReturnType<typeof createDb>
}

const resolvePrincipal = apiKeyResolver(db)
const app = express()
app.disable('x-powered-by')
// HOST=1: the agent behind a multi-agent host at /a2a/replica, served by a2aListener as examples/invoices serves its agents.
const host = process.env.HOST ? createAgentHost({ resolvePrincipal, agents: [{ id: 'replica', ...options }] }) : undefined
const exchange = host ? host.agent('replica')! : createExchange({ ...options, resolvePrincipal })
if (!host) app.use(a2aRouter(exchange))
const server = (host ? createHttpServer(a2aListener(host, app)) : app).listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  say({ port: (server.address() as AddressInfo).port, path: host ? '/a2a/replica' : '/a2a' }),
)

process.once('SIGTERM', async () => {
  await (host ?? exchange).shutdown({ timeoutMs: 2000 })
  if ('close' in store) await store.close()
  await db.$disconnect()
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
