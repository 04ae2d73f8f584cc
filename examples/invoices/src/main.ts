import type { AddressInfo } from 'node:net'
import { devKeyResolver } from '@a2a-agent/runtime'
import { prepareSqlite } from '@a2a-agent/runtime/prisma'
import { createApp } from './app.js'
import { createDb } from './db.js'

const port = Number(process.env.PORT ?? 3000)
// Development only: owner:token pairs. Owners must be User ids in the database.
const devKeys = process.env.A2A_DEV_KEYS ?? 'alice:key-alice,bob:key-bob'

const db = createDb()
await prepareSqlite(db)
const { app, exchange } = createApp({ db, resolvePrincipal: devKeyResolver(devKeys) })
const server = app.listen(port, () => {
  const { port: bound } = server.address() as AddressInfo
  console.log(`Invoices agent on http://localhost:${bound}/a2a and /mcp`)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await exchange.shutdown({ timeoutMs: 5000 })
    await db.$disconnect()
    server.close(() => process.exit(0))
  })
}
