import { serve, servesA2a, withDevKeys } from '@a2a-agent/runtime'
import { apiKeyResolver, prepareSqlite } from '@a2a-agent/runtime/prisma'
import { jobQueue } from './jobs.js'
import { createApp } from './app.js'
import { createDb, createStore, isMysql, isPostgresql } from './db.js'

// serve() loads .env, logs (LOG_LEVEL), traces (OTEL_*), serves /healthz and /readyz (the database
// answers, its tables are current, not shutting down) and shuts down gracefully on SIGINT/SIGTERM.
// A2A_ROLE=web|agent|worker (default all) runs one part of the app per process: see the README.
await serve({
  name: 'invoices',
  async start({ env, role }) {
    const databaseUrl = env.DATABASE_URL ?? 'file:./dev.db'
    const db = createDb(databaseUrl)
    if (!isPostgresql(databaseUrl) && !isMysql(databaseUrl)) await prepareSqlite(db)
    // The A2A tasks go through a connection of their own to the same database: several times faster
    // than through the Prisma client, with the same tables. Its schema check runs before listening.
    const store = createStore(databaseUrl)
    // API keys from the database: `npx a2a keys create --user alice` prints one. For a quick try,
    // A2A_DEV_KEYS="alice:<token>,bob:<token>" (owner:token pairs) adds development keys, which
    // NODE_ENV=production refuses. Either way owners must be User ids in the database.
    const resolvePrincipal = withDevKeys(apiKeyResolver(db))
    // A2A_CARD_SIGNING_KEY (a PEM, JWK or JWK Set) signs the agents' cards; see the runtime README.
    // A2A_COMPAT_V03=true serves A2A 0.3 clients too (requests without A2A-Version); see the runtime README.
    // The statement jobs' queue: pg-boss in the PostgreSQL database, a table in the MySQL one, or a SQLite file beside dev.db.
    const queue = await jobQueue(databaseUrl)
    const { listener, host } = createApp({
      db,
      store,
      jobQueue: queue,
      resolvePrincipal,
      signingKeys: env.A2A_CARD_SIGNING_KEY,
      v03: env.A2A_COMPAT_V03 === 'true',
    })
    // A2A_GRPC_PORT serves the invoices agent over gRPC as well, listed on its card (the agent and all roles).
    const grpcPort = servesA2a(role) ? env.A2A_GRPC_PORT : undefined
    const grpc = grpcPort ? await (await import('@a2a-agent/runtime/grpc')).serveGrpc(host, { port: Number(grpcPort), agent: 'invoices' }) : undefined
    const keys = env.A2A_DEV_KEYS?.trim() ? 'API keys and the development keys in A2A_DEV_KEYS' : 'API keys: a2a keys create --user <id>'
    return {
      listener,
      exchange: host,
      store,
      // Runs the queued jobs, under A2A_ROLE=worker or all; a worker may run in other processes on the same PostgreSQL or MySQL too.
      background: [host.jobWorker()],
      check: () => db.$queryRaw`SELECT 1`,
      close: async () => {
        await queue.stop()
        await grpc?.close()
        await db.$disconnect()
      },
      banner: (url) => `Invoices agents on ${url}/a2a/invoices and /a2a/reports (listed at /a2a/agents), tools at /mcp (${keys})`,
    }
  },
})
