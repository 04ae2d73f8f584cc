import { z } from 'zod'
import { openDatabase } from '../packages/runtime/src/store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../packages/runtime/src/store/sql/postgres/postgres-store.js'
import { startTestServer, userMessage } from '../packages/runtime/src/testing/test-server.js'
import { defineSkill } from '../packages/runtime/src/skills/skill.js'
import { defineJob } from '../packages/runtime/src/jobs/job.js'
import { PgBossJobQueue } from '../packages/runtime/src/jobs/pg-boss-job-queue.js'
import { MemoryJobQueue } from '../packages/runtime/src/jobs/memory-job-queue.js'
import { MemoryStore } from '../packages/runtime/src/store/memory-store.js'

const quiet = { warn: () => {}, error: (l: string) => console.error(l) }
const N = Number(process.argv[2] ?? 200)
for (const kind of ['memory', 'postgres'] as const) {
  const database = kind === 'postgres' ? await openDatabase('postgres') : undefined
  const job = defineJob({ name: 'j', input: z.object({}), run: (ctx) => ctx.complete('done') })
  const queue = database ? new PgBossJobQueue({ connectionString: database.url, pollingIntervalSeconds: 0.5, logger: quiet }) : new MemoryJobQueue()
  const store = database ? new PostgresStore(database.url, { max: 8 }) : new MemoryStore()
  const enqueue = defineSkill({ id: 'enqueue', description: 'x', handler: (ctx) => ctx.enqueue(job, {}) })
  const echo = defineSkill({ id: 'echo', description: 'x', handler: (ctx) => ctx.complete('echo') })
  const server = await startTestServer({ skills: [enqueue, echo], store, jobs: { queue, jobs: [job] }, logger: quiet, maxConcurrentRunsPerOwner: -1, settledTaskRetention: -1 })
  const sendAll = async (skill: string) => {
    const t0 = performance.now()
    const ids: string[] = []
    for (let i = 0; i < N; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => server.result('SendMessage', { message: userMessage('x', { skill }) })))
      ids.push(...batch.map((r) => r.task.id))
    }
    return { ms: performance.now() - t0, ids }
  }
  await sendAll('echo') // warm-up
  const echoRun = await sendAll('echo')
  const sent = await sendAll('enqueue')
  const worker = server.exchange.jobWorker({ concurrency: 4 })
  const t1 = performance.now()
  await worker.start()
  for (;;) {
    const states = await Promise.all(sent.ids.map(async (id) => (await store.get(id))!.task.status.state))
    if (states.every((s) => s === 'TASK_STATE_COMPLETED')) break
    await new Promise((r) => setTimeout(r, 20))
  }
  const drained = performance.now() - t1
  console.log(`${kind}: ${N} sends (10 at a time): echo ${(echoRun.ms / N).toFixed(2)} ms/send, enqueue ${(sent.ms / N).toFixed(2)} ms/send; ${N} queued jobs completed in ${drained.toFixed(0)} ms (${(N / (drained / 1000)).toFixed(0)} jobs/s, concurrency 4)`)
  await worker.stop()
  await server.close()
  if ('stop' in queue) await queue.stop()
  if ('close' in store) await (store as PostgresStore).close()
  await database?.close()
}
