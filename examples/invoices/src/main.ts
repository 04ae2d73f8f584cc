import type { AddressInfo } from 'node:net'
import { createHttpServer, loadDotEnv, withDevKeys } from '@a2a-agent/runtime'
import { apiKeyResolver, prepareSqlite } from '@a2a-agent/runtime/prisma'
import { createApp } from './app.js'
import { createDb, createStore, isPostgresql } from './db.js'

// Settings from .env when there is one; exported variables win over it.
loadDotEnv()
const port = Number(process.env.PORT ?? 3000)
const databaseUrl = process.env.DATABASE_URL ?? 'file:./dev.db'
const db = createDb(databaseUrl)

// API keys from the database: `npx a2a keys create --user alice` prints one. For a quick try,
// A2A_DEV_KEYS="alice:<token>,bob:<token>" (owner:token pairs) adds development keys, which
// NODE_ENV=production refuses. Either way owners must be User ids in the database.
let resolvePrincipal
try {
  resolvePrincipal = withDevKeys(apiKeyResolver(db))
} catch (error) {
  console.error(`invoices: ${(error as Error).message}`)
  process.exit(1)
}
const devKeys = process.env.A2A_DEV_KEYS?.trim()
if (!isPostgresql(databaseUrl)) await prepareSqlite(db)
// The A2A tasks go through a connection of their own to the same database: several times faster
// than through the Prisma client, with the same tables.
const store = createStore(databaseUrl)
// Fails here, naming what to migrate, when the database lacks tables this runtime uses.
await store.ready().catch((error: Error) => {
  console.error(`invoices: ${error.message}`)
  process.exit(1)
})
// A2A_CARD_SIGNING_KEY (a PEM, JWK or JWK Set) signs the agents' cards; see the runtime README.
const { listener, host } = createApp({ db, store, resolvePrincipal, signingKeys: process.env.A2A_CARD_SIGNING_KEY })
const server = createHttpServer(listener).listen(port, () => {
  const { port: bound } = server.address() as AddressInfo
  console.log(`Invoices agents on http://localhost:${bound}/a2a/invoices and /a2a/reports (listed at /a2a/agents), tools at /mcp (${devKeys ? 'API keys and the development keys in A2A_DEV_KEYS' : 'API keys: a2a keys create --user <id>'})`)
})
// A2A_GRPC_PORT serves the invoices agent over gRPC as well, listed on its card.
if (process.env.A2A_GRPC_PORT) await (await import('@a2a-agent/runtime/grpc')).serveGrpc(host, { port: Number(process.env.A2A_GRPC_PORT), agent: 'invoices' })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await host.shutdown({ timeoutMs: 5000 })
    await store.close()
    await db.$disconnect()
    server.close(() => process.exit(0))
  })
}
