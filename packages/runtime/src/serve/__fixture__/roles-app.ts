/**
 * One app for every role, as a scaffolded main.ts starts one: an agent with the `done` skill on
 * PostgresStore, its push notifications through a PushOutbox (a background service: its workers
 * deliver under the worker and all roles, the other roles only queue), and an Express route of its
 * own at /hello. A2A_ROLE picks the process's part; RUN_LEASE_MS sets the run leases.
 */
import express from 'express'
import { a2aListener, createExchange, defineSkill, serve } from '@a2a-agent/runtime'
import { PostgresStore } from '@a2a-agent/runtime/prisma'
import { PushOutbox } from '@a2a-agent/runtime/push-outbox'

const done = defineSkill({ id: 'done', description: 'completes at once', handler: (ctx) => ctx.complete('done') })

await serve({
  name: 'roles-app',
  start({ env, logger }) {
    const store = new PostgresStore(env.DATABASE_URL!)
    const outbox = new PushOutbox({ connectionString: env.DATABASE_URL!, allowPrivate: true, pollingIntervalSeconds: 0.5, logger })
    const exchange = createExchange({
      skills: [done],
      store,
      resolvePrincipal: () => ({ owner: 'alice' }),
      card: { name: 'Roles app', description: 'fixture', version: '0.0.0' },
      allowPrivatePush: true,
      pushDelivery: outbox,
      runLeaseMs: Number(env.RUN_LEASE_MS ?? 30_000),
    })
    const web = express()
    web.get('/hello', (_request, response) => void response.json({ hello: 'web' }))
    return { listener: a2aListener(exchange, web), exchange, store, background: [outbox] }
  },
})
