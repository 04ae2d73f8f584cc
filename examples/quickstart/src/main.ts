import type { AddressInfo } from 'node:net'
import { createHttpServer, devKeysFromEnv, type PrincipalResolver } from '@a2a-agent/runtime'
import { createQuickstart } from './agent.js'

const port = Number(process.env.PORT ?? 3000)
// Development keys, only when set explicitly (`npm start` passes alice's and bob's): no default,
// and refused under NODE_ENV=production.
let devKeys: PrincipalResolver | undefined
try {
  devKeys = devKeysFromEnv()
} catch (error) {
  console.error(`quickstart: ${(error as Error).message}`)
  process.exit(1)
}
if (!devKeys) {
  console.error('quickstart: A2A_DEV_KEYS is not set; set owner:token pairs, e.g. A2A_DEV_KEYS=alice:<token>, or run `npm start`, which sets development keys')
  process.exit(1)
}

// Development only: lets push notifications reach a webhook receiver on this machine.
const allowPrivatePush = process.env.A2A_ALLOW_PRIVATE_PUSH === '1'
if (allowPrivatePush) console.warn('A2A_ALLOW_PRIVATE_PUSH=1: push URLs on loopback and private networks are allowed')

const { listener, exchange } = createQuickstart({ resolvePrincipal: devKeys, overrides: { allowPrivatePush } })
const server = createHttpServer(listener).listen(port, () => {
  const { port: bound } = server.address() as AddressInfo
  console.log(`A2A agent on http://localhost:${bound}/a2a (card: http://localhost:${bound}/.well-known/agent-card.json)`)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await exchange.shutdown({ timeoutMs: 5000 })
    server.close(() => process.exit(0))
  })
}
