/**
 * Jobs: what a send that enqueues costs beside one that completes at once, and how fast one worker
 * drains a queue of trivial jobs, on MemoryJobQueue + MemoryStore, on PgBossJobQueue +
 * PostgresStore and on MysqlJobQueue + PrismaStore (MariaDB) (each a fresh database). BENCH_JOBS (default 200) sends of each, ten at a time, in
 * process through a listening server; then a worker (concurrency BENCH_JOB_CONCURRENCY, default 4)
 * is started and timed until every job's task is COMPLETED.
 *
 *   npm run bench:jobs
 */
import { z } from 'zod'
import { defineJob, defineSkill, MemoryJobQueue, MemoryStore } from '@a2a-agent/runtime'
import { PostgresStore, PrismaStore } from '@a2a-agent/runtime/prisma'
import { MysqlJobQueue } from '@a2a-agent/runtime/mysql-jobs'
import { PgBossJobQueue } from '@a2a-agent/runtime/pg-boss-jobs'
import { startTestServer, userMessage } from '@a2a-agent/runtime/testing'
import { openDatabase } from '../packages/runtime/src/store/prisma/__fixture__/databases.js'

const quiet = { warn: () => {}, error: (line: string) => console.error(line) }
const N = Number(process.env.BENCH_JOBS ?? 200)
const concurrency = Number(process.env.BENCH_JOB_CONCURRENCY ?? 4)

for (const kind of ['memory', 'postgres', 'mysql'] as const) {
  const database = kind === 'memory' ? undefined : await openDatabase(kind)
  const job = defineJob({ name: 'trivial', input: z.object({}), run: (ctx) => ctx.complete('done') })
  const queue =
    kind === 'postgres'
      ? new PgBossJobQueue({ connectionString: database!.url, logger: quiet })
      : kind === 'mysql'
        ? new MysqlJobQueue({ url: database!.url, logger: quiet })
        : new MemoryJobQueue()
  const store = kind === 'postgres' ? new PostgresStore(database!.url, { max: 8 }) : kind === 'mysql' ? new PrismaStore(database!.db) : new MemoryStore()
  const enqueue = defineSkill({ id: 'enqueue', description: 'hands its work to a job', handler: (ctx) => ctx.enqueue(job, {}) })
  const echo = defineSkill({ id: 'echo', description: 'completes at once', handler: (ctx) => ctx.complete('echo') })
  // Every task kept (no retention trim), no run cap: the bench reads each task back.
  const server = await startTestServer({ skills: [enqueue, echo], store, jobs: { queue, jobs: [job] }, logger: quiet, maxConcurrentRunsPerOwner: -1, settledTaskRetention: -1 })
  const sendAll = async (skill: string) => {
    const started = performance.now()
    const ids: string[] = []
    for (let i = 0; i < N; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => server.result('SendMessage', { message: userMessage('x', { skill }) })))
      ids.push(...batch.map((result) => result.task.id as string))
    }
    return { ms: performance.now() - started, ids }
  }
  await sendAll('echo') // warm-up
  const echoed = await sendAll('echo')
  const queued = await sendAll('enqueue')
  const worker = server.exchange.jobWorker({ concurrency })
  const started = performance.now()
  await worker.start()
  for (;;) {
    const states = await Promise.all(queued.ids.map(async (id) => (await store.get(id))?.task.status.state))
    if (states.every((state) => state === 'TASK_STATE_COMPLETED')) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const drained = performance.now() - started
  console.log(
    `${kind.padEnd(8)} send: echo ${(echoed.ms / N).toFixed(2)} ms, enqueue ${(queued.ms / N).toFixed(2)} ms (10 at a time); ` +
      `${N} jobs drained in ${drained.toFixed(0)} ms, ${(N / (drained / 1000)).toFixed(0)} jobs/s at concurrency ${concurrency}`,
  )
  await worker.stop()
  await server.close()
  if (queue instanceof PgBossJobQueue || queue instanceof MysqlJobQueue) await queue.stop()
  if (store instanceof PostgresStore) await store.close()
  await database?.close()
}
