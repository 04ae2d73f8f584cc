/**
 * One process of the job tests (argv: database URL, role). On PostgreSQL: `serve` answers A2A on a
 * loopback port and prints its URL; `work` runs jobs and prints "working"; `work-and-hang` too,
 * but its attempts hang after their artifact is stored, until the process is killed. Every role
 * delivers push notifications through the outbox. On SQLite (a `file:` URL) one process does
 * both, as SQLite apps run: `serve` and `serve-and-hang` print the URL, the queue in a side file.
 * On MySQL/MariaDB (a `mysql:` URL) the roles are PostgreSQL's, on MysqlStore, MysqlJobQueue and
 * MysqlPushOutbox.
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
import { MysqlJobQueue } from '../mysql-job-queue.js'
import { MysqlPushOutbox } from '../../push/outbox/mysql-push-outbox.js'
import { MysqlStore } from '../../store/sql/mysql/mysql-store.js'
import { SqliteJobQueue } from '../sqlite-job-queue.js'
import { SqliteStore } from '../../store/sql/sqlite/sqlite-store.js'
import { defineJob } from '../../skills/job.js'

const [url, role] = process.argv.slice(2) as [string, 'serve' | 'serve-and-hang' | 'work' | 'work-and-hang']
const sqlite = url.startsWith('file:')
const mysql = url.startsWith('mysql:')
const logger = { warn: () => {}, error: (line: string) => console.error(line) }

export const statement = defineJob({
  name: 'statement',
  input: z.object({ month: z.string() }),
  retries: 2,
  backoff: { delayMs: 1000, exponential: false },
  // Longer than the test takes to kill a hanging attempt: the kill, not the deadline, must end it.
  timeoutMs: 8000,
  run: async (ctx, input) => {
    // The recorded outcome: an attempt after a crash finds the artifact stored and makes it once.
    if (!ctx.artifacts.some((artifact) => artifact.artifactId === 'statement')) {
      await ctx.artifact({ artifactId: 'statement', name: 'statement', parts: `statement for ${input.month}` })
    }
    if (role.endsWith('-and-hang')) {
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

const delivery = { allowPrivate: true, timeoutMs: 1000, pollingIntervalSeconds: 0.5, sweepIntervalMs: 500, logger }
const outbox = sqlite ? undefined : mysql ? new MysqlPushOutbox({ url, ...delivery }) : new PushOutbox({ connectionString: url, ...delivery })
await outbox?.start()
const queue = sqlite
  ? new SqliteJobQueue({ file: `${url}.jobs`, pollingIntervalMs: 100, expireGraceMs: 500 })
  : mysql
    ? new MysqlJobQueue({ url, pollingIntervalMs: 100, expireGraceMs: 500, logger })
    : new PgBossJobQueue({ connectionString: url, pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, expireGraceSeconds: 1, logger })
const exchange = createExchange({
  card: { name: 'Statements', description: 'monthly statements', version: '0.0.0' },
  resolvePrincipal: () => ({ owner: 'alice' }),
  skills: [skill],
  store: sqlite ? new SqliteStore(url) : mysql ? new MysqlStore(url, { max: 4 }) : new PostgresStore(url, { max: 4 }),
  allowPrivatePush: true,
  ...(outbox ? { pushDelivery: outbox } : {}),
  jobs: { queue, jobs: [statement] },
  logger,
})
if (sqlite) await exchange.jobWorker({ concurrency: 1 }).start()
if (role.startsWith('serve')) {
  const server = createHttpServer(a2aListener(exchange, express())).listen(0, '127.0.0.1')
  server.once('listening', () => {
    const address = server.address() as { port: number }
    console.log(`http://127.0.0.1:${address.port}${exchange.path}`)
  })
} else {
  await exchange.jobWorker({ concurrency: 1 }).start()
  console.log('working')
}
