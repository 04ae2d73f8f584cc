import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Principal } from '../auth/principal.js'
import { defineSkill } from '../skills/skill.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/prisma/postgres-store.js'
import { gate } from '../testing/gate.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'

// A keep-alive recheck during a database outage: a read that fails is not a task that is gone.

const release = gate()
const waits = defineSkill({
  id: 'waits',
  description: 'works until released',
  handler: async (ctx) => {
    await ctx.working()
    await release.opened
    await ctx.complete()
  },
})

let database: TestDatabase
let store: PostgresStore
let server: TestServer
beforeAll(async () => {
  database = await openDatabase('postgres')
  store = new PostgresStore(database.url, { max: 2 })
})
afterAll(async () => {
  release.open()
  await server?.close()
  await store?.close()
  await database?.close()
})

/** Refuses new connections to the test database and cuts its open ones, until the returned function is called. */
async function outage(url: string): Promise<() => Promise<void>> {
  const name = new URL(url).pathname.slice(1)
  const adminUrl = new URL(url)
  adminUrl.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: adminUrl.href })
  await admin.connect()
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`)
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name])
  return async () => {
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)
    await admin.end()
  }
}

it('keeps a stream open through store reads that fail at its keep-alive rechecks, and ends it when the task completes', async () => {
  const alice: Principal = { owner: 'alice' }
  server = await startTestServer({ store, skills: [waits], streamKeepAliveMs: 30, resolvePrincipal: () => alice })
  const reply = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'waits' }) })
  await reply.next()
  await reply.next()
  const end = await outage(database.url)
  try {
    const comments = reply.comments
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Several rechecks ran, each read failing.
    expect(reply.comments).toBeGreaterThan(comments + 2)
  } finally {
    await end()
  }
  release.open()
  const events = await reply.ended
  expect(events.at(-1)).toMatchObject({ data: { result: { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } } } })
})
