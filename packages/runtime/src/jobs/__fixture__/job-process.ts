/**
 * One process of the job tests on PostgreSQL (argv: database URL, role). `serve` answers A2A on a
 * loopback port and prints its URL; `work` runs jobs and prints "working"; `work-and-hang` too,
 * but its attempts hang after their artifact is stored, until the process is killed. Every role
 * delivers push notifications through the outbox.
 */
import express from 'express'
import { z } from 'zod'
import { a2aListener } from '../../host/a2a-listener.js'
import { createExchange } from '../../exchange/exchange.js'
import { createHttpServer } from '../../http/http-server.js'
import { defineSkill } from '../../skills/skill.js'
import { PostgresStore } from '../../store/sql/postgres/postgres-store.js'
import { PushOutbox } from '../../push/outbox/push-outbox.js'
import { PgBossJobQueue } from '../pg-boss-job-queue.js'
import { defineJob } from '../job.js'

const [url, role] = process.argv.slice(2) as [string, 'serve' | 'work' | 'work-and-hang']
const logger = { warn: () => {}, error: (line: string) => console.error(line) }

export const statement = defineJob({
  name: 'statement',
  input: z.object({ month: z.string() }),
  retries: 2,
  backoff: { delayMs: 1000, exponential: false },
  timeoutMs: 3000,
  run: async (ctx, input) => {
    // The recorded outcome: an attempt after a crash finds the artifact stored and makes it once.
    if (!ctx.artifacts.some((artifact) => artifact.artifactId === 'statement')) {
      await ctx.artifact({ artifactId: 'statement', name: 'statement', parts: `statement for ${input.month}` })
    }
    if (role === 'work-and-hang') {
      console.log(`hanging on attempt ${ctx.attempt}`)
      await new Promise(() => {})
    }
    await ctx.complete(`statement for ${input.month} ready (attempt ${ctx.attempt})`)
  },
})

const skill = defineSkill({
  id: 'statement',
  description: 'queues a monthly statement',
  handler: (ctx) => ctx.enqueue(statement, { month: ctx.text }, 'statement queued'),
})

const outbox = new PushOutbox({ connectionString: url, allowPrivate: true, timeoutMs: 1000, pollingIntervalSeconds: 0.5, sweepIntervalMs: 500, logger })
await outbox.start()
const queue = new PgBossJobQueue({ connectionString: url, pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, expireGraceSeconds: 1, logger })
const exchange = createExchange({
  card: { name: 'Statements', description: 'monthly statements', version: '0.0.0' },
  resolvePrincipal: () => ({ owner: 'alice' }),
  skills: [skill],
  store: new PostgresStore(url, { max: 4 }),
  allowPrivatePush: true,
  pushDelivery: outbox,
  jobs: { queue, jobs: [statement] },
  logger,
})
if (role === 'serve') {
  const server = createHttpServer(a2aListener(exchange, express())).listen(0, '127.0.0.1')
  server.once('listening', () => {
    const address = server.address() as { port: number }
    console.log(`http://127.0.0.1:${address.port}${exchange.path}`)
  })
} else {
  await exchange.jobWorker({ concurrency: 1 }).start()
  console.log('working')
}
