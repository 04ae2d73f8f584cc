/**
 * One app for every role, as a scaffolded main.ts starts one: an agent with the `done` skill on
 * the database's native store (PostgresStore, or MysqlStore for a mysql:// URL), its push
 * notifications through that database's push outbox (a background service: its workers deliver
 * under the worker and all roles, the other roles only queue), and an Express route of its own at
 * /hello. A2A_ROLE picks the process's part; RUN_LEASE_MS sets the run leases.
 */
import express from 'express'
import { a2aListener, createExchange, defineSkill, serve } from '@a2a-agent/runtime'
import { MysqlStore, PostgresStore } from '@a2a-agent/runtime/prisma'

const done = defineSkill({ id: 'done', description: 'completes at once', handler: (ctx) => ctx.complete('done') })

/** The store and outbox of the database at `url`, each outbox's driver loaded only for its database. */
async function storage(url: string, logger: { warn(line: string): void; error(line: string): void }) {
  const delivery = { allowPrivate: true, pollingIntervalSeconds: 0.5, logger }
  if (/^mysql:/.test(url)) {
    const { MysqlPushOutbox } = await import('@a2a-agent/runtime/mysql-push-outbox')
    return { store: new MysqlStore(url), outbox: new MysqlPushOutbox({ url, ...delivery }) }
  }
  const { PushOutbox } = await import('@a2a-agent/runtime/push-outbox')
  return { store: new PostgresStore(url), outbox: new PushOutbox({ connectionString: url, ...delivery }) }
}

await serve({
  name: 'roles-app',
  async start({ env, logger }) {
    const { store, outbox } = await storage(env.DATABASE_URL!, logger)
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
