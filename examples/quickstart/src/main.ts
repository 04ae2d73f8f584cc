import { devKeysFromEnv, serve } from '@a2a-agent/runtime'
import { createQuickstart } from './agent.js'

await serve({
  name: 'quickstart',
  start({ env, logger }) {
    // Development keys, only when set explicitly (`npm start` passes alice's and bob's): no default,
    // and refused under NODE_ENV=production.
    const devKeys = devKeysFromEnv()
    if (!devKeys) throw new Error('A2A_DEV_KEYS is not set; set owner:token pairs, e.g. A2A_DEV_KEYS=alice:<token>, or run `npm start`, which sets development keys')
    // Development only: lets push notifications reach a webhook receiver on this machine.
    const allowPrivatePush = env.A2A_ALLOW_PRIVATE_PUSH === '1'
    if (allowPrivatePush) logger.warn('A2A_ALLOW_PRIVATE_PUSH=1: push URLs on loopback and private networks are allowed')
    const { listener, exchange } = createQuickstart({ resolvePrincipal: devKeys, overrides: { allowPrivatePush } })
    return { listener, exchange, banner: (url) => `A2A agent on ${url}/a2a (card: ${url}/.well-known/agent-card.json)` }
  },
})
