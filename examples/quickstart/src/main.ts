import type { AddressInfo } from 'node:net'
import { createHttpServer } from '@a2a-agent/runtime'
import { createQuickstart } from './agent.js'

const port = Number(process.env.PORT ?? 3000)
const devKeys = process.env.A2A_DEV_KEYS ?? 'alice:key-alice,bob:key-bob'
if (!process.env.A2A_DEV_KEYS) console.warn('A2A_DEV_KEYS is not set: using the development keys alice:key-alice,bob:key-bob')

// Development only: lets push notifications reach a webhook receiver on this machine.
const allowPrivatePush = process.env.A2A_ALLOW_PRIVATE_PUSH === '1'
if (allowPrivatePush) console.warn('A2A_ALLOW_PRIVATE_PUSH=1: push URLs on loopback and private networks are allowed')

const { app, exchange } = createQuickstart({ devKeys, overrides: { allowPrivatePush } })
const server = createHttpServer(app).listen(port, () => {
  const { port: bound } = server.address() as AddressInfo
  console.log(`A2A agent on http://localhost:${bound}/a2a (card: http://localhost:${bound}/.well-known/agent-card.json)`)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await exchange.shutdown({ timeoutMs: 5000 })
    server.close(() => process.exit(0))
  })
}
