import pg from 'pg'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { createApiKey, apiKeyResolver } from '../auth/api-keys.js'
import type { Principal } from '../core/principal.js'
import { defineSkill } from '../skills/skill.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { gate } from '../testing/gate.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'

// A stream during a database outage: a read or credential lookup that fails is not a task that is
// gone nor a caller who lost access.

const releases: Array<() => void> = []
/** A skill that works until the returned function is called. */
function waiting(): { skill: ReturnType<typeof defineSkill>; release: () => void } {
  const release = gate()
  releases.push(release.open)
  const skill = defineSkill({
    id: 'waits',
    description: 'works until released',
    handler: async (ctx) => {
      await ctx.working()
      await release.opened
      await ctx.complete()
    },
  })
  return { skill, release: release.open }
}

/** A store whose reads can be armed to start an outage, to fail one read the test cannot time from outside. */
class ArmedStore extends PostgresStore {
  beforeRead: (() => Promise<unknown>) | undefined
  override async get(id: string) {
    const before = this.beforeRead
    this.beforeRead = undefined
    await before?.()
    return super.get(id)
  }
}

let database: TestDatabase
let store: ArmedStore
const servers: TestServer[] = []
beforeAll(async () => {
  database = await openDatabase('postgres')
  store = new ArmedStore(database.url, { max: 2 })
})
afterAll(async () => {
  releases.forEach((open) => open())
  for (const server of servers) await server.close()
  await store?.close()
  await database?.close()
})

async function serve(options: Omit<Parameters<typeof startTestServer>[0], 'store'>): Promise<TestServer> {
  const server = await startTestServer({ store, streamKeepAliveMs: 30, ...options })
  servers.push(server)
  return server
}

const completed = { data: { result: { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } } } }

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

/** Opens a stream on the waiting skill, takes the database away for at least three 30 ms keep-alives, then lets the task end. */
async function expectStreamOutlivesOutage(server: TestServer, release: () => void): Promise<void> {
  const reply = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'waits' }) })
  await reply.next()
  await reply.next()
  const end = await outage(database.url)
  try {
    const comments = reply.comments
    // Several rechecks ran, each failing, and none ended the stream (waited for, not timed: a
    // loaded machine spaces the keep-alives out).
    await vi.waitFor(() => expect(reply.comments).toBeGreaterThan(comments + 2), { timeout: 10_000, interval: 20 })
    expect(reply.events).toHaveLength(2)
  } finally {
    await end()
  }
  release()
  expect((await reply.ended).at(-1)).toMatchObject(completed)
}

it('keeps a stream open through store reads that fail at its keep-alive rechecks, and ends it when the task completes', async () => {
  const alice: Principal = { owner: 'alice' }
  const { skill, release } = waiting()
  const server = await serve({ skills: [skill], resolvePrincipal: () => alice })
  await expectStreamOutlivesOutage(server, release)
})

it('keeps a stream open while re-checking its API key fails (database away), and ends it when the task completes', async () => {
  const { key } = await createApiKey(database.db, { owner: 'alice' })
  const { skill, release } = waiting()
  const server = await serve({ skills: [skill], resolvePrincipal: apiKeyResolver(database.db), token: key, logger: { warn: () => {}, error: () => {} } })
  await expectStreamOutlivesOutage(server, release)
})

/**
 * Opens a stream on the waiting skill and arms an outage on the `outageAt`-th store read after it
 * (1: SubscribeToTask's visibility check, 2: the stream's own first read). No other read may take
 * an armed one: the server's keep-alive is long, so the open stream does not recheck, and the store
 * listens again after the earlier tests' outages, so no resync makes the running task read itself.
 */
async function subscribeThroughOutage(outageAt: 1 | 2) {
  const alice: Principal = { owner: 'alice' }
  const { skill, release } = waiting()
  const server = await serve({ skills: [skill], resolvePrincipal: () => alice, streamKeepAliveMs: 60_000, logger: { warn: () => {}, error: () => {} } })
  const sent = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'waits' }) })
  const taskId = (await sent.next())!.data.result.task.id
  await sent.next()
  await vi.waitFor(() => expect(store.notifications!.live).toBe(true), { timeout: 10_000, interval: 20 })
  await new Promise((resolve) => setImmediate(resolve))
  let end: (() => Promise<void>) | undefined
  const startOutage = async () => void (end = await outage(database.url))
  store.beforeRead = outageAt === 1 ? startOutage : () => ((store.beforeRead = startOutage), Promise.resolve())
  try {
    const reply = await server.stream('SubscribeToTask', { id: taskId })
    const events = await reply.ended
    expect(end).toBeDefined()
    return { reply, events }
  } finally {
    store.beforeRead = undefined
    await end?.()
    release()
    expect((await sent.ended).at(-1)).toMatchObject(completed)
  }
}

it('answers a SubscribeToTask whose first store read fails with -31503 UNAVAILABLE (retry), not task not found', async () => {
  const { events } = await subscribeThroughOutage(2)
  expect(events).toHaveLength(1)
  expect(events[0]!.data.error).toMatchObject({ code: -31503 })
})

it('answers a SubscribeToTask whose visibility check cannot read the store with HTTP 503, Retry-After and -31503 before any stream opens', async () => {
  const { reply, events } = await subscribeThroughOutage(1)
  expect(events).toHaveLength(0)
  expect(reply.status).toBe(503)
  expect(reply.headers.get('retry-after')).toBe('5')
  expect(reply.body.error).toMatchObject({ code: -31503 })
})
