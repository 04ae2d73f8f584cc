import express from 'express'
import { createExchange, defineSkill } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
const done = defineSkill({ id: 'done', description: 'd', handler: async (ctx) => { await ctx.artifact({ name: 'r', parts: 'ok' }); await ctx.complete() } })
const ex = createExchange({ skills: [done], resolvePrincipal: () => ({ owner: 'b' }), card: { name: 'x', description: 'x', version: '0' }, maxConcurrentRunsPerOwner: -1 })
const app = express()
if (process.env.MODE === 'direct') app.post('/a2a', (q, r) => void ex.handle(q, r))
else app.use(a2aRouter(ex))
app.listen(4558)
