/**
 * A PostgreSQL connection cut under a statement, made deterministic: the test's own admin
 * connection locks a table, the store's statement waits on the lock, and every backend waiting so
 * is terminated (pg_terminate_backend, on the test's own database only) until the statement has
 * failed past its one retry. The caller must get an answer it can act on (HTTP 503 with
 * Retry-After, -31503 with retryAfter in its data), and a run slot whose release was cut must not
 * keep counting against the owner's cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../../../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../../../testing/test-server.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { fulfilled, type LockCutter, lockCutter } from './__fixture__/lock-cutter.js'
import { PostgresStore } from './postgres-store.js'

let release: () => void = () => {}
const held = defineSkill({
  id: 'held',
  description: 'completes once the test lets it',
  handler: async (ctx) => {
    await new Promise<void>((resolve) => (release = resolve))
    await ctx.complete('done')
  },
})
const done = defineSkill({ id: 'done', description: 'completes at once', handler: (ctx) => ctx.complete('ok') })

let database: TestDatabase
let store: PostgresStore
let server: TestServer
let cutter: LockCutter
beforeAll(async () => {
  database = await openDatabase('postgres')
  store = new PostgresStore(database.url, { max: 4 })
  await store.ready()
  server = await startTestServer({ skills: [held, done], store, maxConcurrentRunsPerOwner: 1, logger: { warn() {}, error() {} } })
  cutter = await lockCutter(database.url)
}, 60_000)
afterAll(async () => {
  await cutter?.end()
  await server?.close()
  await store?.close()
  await database?.close()
})

describe('a PostgreSQL connection cut under a statement', () => {
  it('answers GetTask with HTTP 503, Retry-After and -31503 on JSON-RPC, and 503 with Retry-After on HTTP+JSON', async () => {
    const task = (await server.result('SendMessage', { message: userMessage('x', { skill: 'done' }) })).task
    const { outcome, cuts } = await cutter.cutWhileLocked('A2ATask', () => server.rpc('GetTask', { id: task.id }))
    const answer = fulfilled(outcome)
    expect(cuts).toBeGreaterThanOrEqual(2)
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('5')
    expect(answer.body.id).not.toBeNull()
    expect(answer.body.error).toMatchObject({ code: -31503, message: expect.stringContaining('send the same request again') })
    expect(answer.body.error.data).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'UNAVAILABLE',
      domain: '@a2a-agent/runtime',
      metadata: { retryAfter: '5' },
    })

    const rest = await cutter.cutWhileLocked('A2ATask', () =>
      fetch(`${server.url}${server.exchange.restPath}/tasks/${task.id}`, { headers: { Authorization: 'Bearer alice', 'A2A-Version': '1.0' } }),
    )
    const restAnswer = fulfilled(rest.outcome)
    expect(restAnswer.status).toBe(503)
    expect(restAnswer.headers.get('retry-after')).toBe('5')
    expect(((await restAnswer.json()) as any).error).toMatchObject({ code: 503, status: 'UNAVAILABLE' })
    // Once the database is back, the same request succeeds.
    expect((await server.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('frees a run slot whose release was cut once the database is back, not after the entry expires', async () => {
    const first = (await server.result('SendMessage', { message: userMessage('wait', { skill: 'held' }), configuration: { returnImmediately: true } })).task
    // The owner's one slot is taken.
    expect((await server.rpc('SendMessage', { message: userMessage('other', { skill: 'done' }) })).body.error?.message).toMatch(/Maximum concurrent task runs/)
    // The run ends while the slot table is locked: its release (and the release's own retry) are cut.
    const { outcome, cuts } = await cutter.cutWhileLocked(
      'A2ALimitEntry',
      async () => {
        release()
        while ((await server.result('GetTask', { id: first.id })).status.state !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 20))
      },
      1000,
    )
    fulfilled(outcome)
    expect(cuts).toBeGreaterThanOrEqual(2)
    // The entry would count for the task deadline and a lease (minutes); the slot comes back well before.
    let answer: any
    for (let tries = 0; tries < 100; tries++) {
      answer = (await server.rpc('SendMessage', { message: userMessage('next', { skill: 'done' }) })).body
      if (!answer.error) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(answer.error).toBeUndefined()
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})
