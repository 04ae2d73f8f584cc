/**
 * A minimal app on SqliteStore started through serve(), as a scaffolded main.ts starts one: the
 * tests run it as a real process against a file with and without the store's tables.
 */
import { a2aListener, createExchange, defineSkill, serve } from '@a2a-agent/runtime'
import { SqliteStore } from '@a2a-agent/runtime/prisma'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})

await serve({
  name: 'sqlite-app',
  start({ env }) {
    const store = new SqliteStore(env.DATABASE_URL!)
    const exchange = createExchange({ skills: [echo], store, resolvePrincipal: () => ({ owner: 'alice' }), card: { name: 'SQLite app', description: 'fixture', version: '0.0.0' } })
    return { listener: a2aListener(exchange), exchange, store, banner: (url) => `sqlite-app on ${url}/a2a` }
  },
})
