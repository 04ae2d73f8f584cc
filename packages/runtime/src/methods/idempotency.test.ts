import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import type { Store } from '../store/store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

let runs = 0
const counted = defineSkill({
  id: 'counted',
  description: 'counts its runs',
  handler: async (ctx) => {
    runs++
    await ctx.artifact({ parts: ctx.text })
  },
})
const ask = defineSkill({
  id: 'ask',
  description: 'asks once',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput('name?')
    await ctx.artifact({ parts: `hi ${ctx.text}` })
  },
})

let hold: Promise<void> = Promise.resolve()
const held = defineSkill({
  id: 'held',
  description: 'works until released',
  handler: async (ctx) => {
    await hold
    await ctx.artifact({ parts: 'done' })
  },
})

// On MemoryStore the exchange looks for a repeat before it creates; on PostgresStore the insert
// itself checks the message id (createUnlessAccepted) and the repeat is looked for only after.
describe.each([
  ['MemoryStore', async () => ({ close: async () => {} })],
  [
    'PostgresStore',
    async () => {
      const database: TestDatabase = await openDatabase('postgres')
      const store = new PostgresStore(database.url, { max: 4 })
      return { store, close: async () => (await store.close(), await database.close()) }
    },
  ],
] as [string, () => Promise<{ store?: Store; close: () => Promise<void> }>][])('messageId idempotency on %s', (_name, open) => {
  let server: TestServer
  let receiver: Server
  let hookUrl: string
  let opened: { store?: Store; close: () => Promise<void> }
  beforeAll(async () => {
    opened = await open()
    server = await startTestServer({
      check: wireCheck,
      skills: [counted, ask, held],
      allowPrivatePush: true,
      maxConcurrentRunsPerOwner: -1,
      ...(opened.store ? { store: opened.store } : {}),
    })
    // A loopback receiver, so push delivery has somewhere real to go.
    receiver = createServer((request, response) => {
      request.resume()
      request.on('end', () => response.writeHead(204).end())
    }).listen(0, '127.0.0.1')
    await new Promise((resolve) => receiver.once('listening', resolve))
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  })
  afterAll(async () => {
    await server.close()
    await opened.close()
    await new Promise((resolve) => receiver.close(resolve))
  })

  const send = async (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => (await server.result('SendMessage', { message, ...extra })).task

  it('answers a repeat of the same message with the first task, running it once', async () => {
    runs = 0
    const message = userMessage('once', { skill: 'counted', metadata: { skill: 'counted', n: 1 } })
    const first = await send(message)
    // Key order does not make a message different; the contextId the server assigned matches too.
    const reordered = { parts: message.parts, metadata: { n: 1, skill: 'counted' }, role: 'ROLE_USER', messageId: message.messageId }
    expect((await send(reordered)).id).toBe(first.id)
    expect((await send({ ...message, contextId: first.contextId, taskId: first.id })).id).toBe(first.id)
    // With only the contextId filled in, the message hashes to another task id: still the repeat.
    expect((await send({ ...message, contextId: first.contextId })).id).toBe(first.id)
    expect(runs).toBe(1)
  })

  it("answers a repeat with its task while the owner's one run slot is taken, by that very task", async () => {
    // Another replica with a run cap: there the repeat is looked for before a slot is taken.
    const capped = await startTestServer({ check: wireCheck, skills: [counted, held], maxConcurrentRunsPerOwner: 1, ...(opened.store ? { store: opened.store } : {}) })
    let release!: () => void
    hold = new Promise((resolve) => (release = resolve))
    try {
      const message = userMessage('wait', { skill: 'held' })
      const first = (await capped.result('SendMessage', { message, configuration: { returnImmediately: true } })).task
      const repeat = (await capped.result('SendMessage', { message, configuration: { returnImmediately: true } })).task
      expect(repeat.id).toBe(first.id)
      // Another message is refused meanwhile: the slot is taken.
      expect((await capped.rpc('SendMessage', { message: userMessage('other', { skill: 'counted' }) })).body.error?.message).toMatch(/Maximum concurrent task runs/)
      release()
      // A blocking repeat answers once the run has ended.
      expect((await capped.result('SendMessage', { message })).task.status.state).toBe('TASK_STATE_COMPLETED')
    } finally {
      release()
      await capped.close()
    }
  })

  it('runs a different message under a reused messageId as a new message', async () => {
    runs = 0
    const message = userMessage('first', { skill: 'counted' })
    const first = await send(message)
    const otherParts = await send({ ...message, parts: [{ text: 'second' }] })
    const otherMetadata = await send({ ...message, metadata: { skill: 'counted', note: 'x' } })
    const otherContext = await send({ ...message, contextId: 'ctx-elsewhere' })
    const ids = [first.id, otherParts.id, otherMetadata.id, otherContext.id]
    expect(new Set(ids).size).toBe(4)
    expect(runs).toBe(4)
    expect(otherParts.artifacts[0].parts).toEqual([{ text: 'second' }])
    expect(otherContext.contextId).toBe('ctx-elsewhere')
    // Each of them is itself idempotent afterwards.
    expect((await send({ ...message, parts: [{ text: 'second' }] })).id).toBe(otherParts.id)
    expect(runs).toBe(4)
  })

  it('takes an in-process message as its JSON carries it: a Date is its ISO text, another date another message', async () => {
    runs = 0
    const call = async (message: Record<string, unknown>) => ((await server.exchange.call({ owner: 'alice' }, 'SendMessage', { message })) as { task: any }).task
    const at = new Date('2026-01-31T12:00:00.000Z')
    const base = userMessage('dated', { skill: 'counted' })
    const dated = (when: unknown) => ({ ...base, parts: [{ data: { when } }] })
    const first = await call(dated(at))
    expect(first.status.state).toBe('TASK_STATE_COMPLETED')
    expect((await server.result('GetTask', { id: first.id })).history[0].parts).toEqual([{ data: { when: at.toISOString() } }])
    // The same message over the wire, and again in-process: repeats of the first.
    expect((await send(dated(at.toISOString()))).id).toBe(first.id)
    expect((await call(dated(new Date(at)))).id).toBe(first.id)
    // Another date under the same messageId is another message: a new task (not an id taken already).
    const later = await call(dated(new Date('2026-02-01T00:00:00.000Z')))
    expect(later.status.state).toBe('TASK_STATE_COMPLETED')
    expect(later.id).not.toBe(first.id)
    expect(runs).toBe(2)
  })

  it('treats a resume as its own message: its repeat answers the resumed task', async () => {
    const asked = await send(userMessage('start', { skill: 'ask' }))
    const answer = userMessage('Ada', { taskId: asked.id })
    const resumed = await send(answer)
    expect(resumed.artifacts[0].parts).toEqual([{ text: 'hi Ada' }])
    expect((await send(answer)).id).toBe(asked.id)
  })

  it('registers the push config a repeat carries, once however often it is repeated', async () => {
    const message = userMessage('push', { skill: 'counted' })
    const first = await send(message)
    const configs = async () => (await server.result('ListTaskPushNotificationConfigs', { taskId: first.id })).configs
    expect(await configs()).toEqual([])
    const withPush = { configuration: { taskPushNotificationConfig: { url: hookUrl, token: 't-1' } } }
    expect((await send(message, withPush)).id).toBe(first.id)
    expect((await send(message, withPush)).id).toBe(first.id)
    expect(await configs()).toEqual([expect.objectContaining({ taskId: first.id, url: hookUrl, token: 't-1' })])
    const other = { configuration: { taskPushNotificationConfig: { url: hookUrl, token: 't-2' } } }
    await send(message, other)
    expect((await configs()).map((c: any) => c.token)).toEqual(['t-1', 't-2'])
  })
})
