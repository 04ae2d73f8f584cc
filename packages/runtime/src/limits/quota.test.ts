import { status as GrpcStatus } from '@grpc/grpc-js'
import { afterEach, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { EVERY_BINDING, type Binding, type BindingClient } from '../testing/binding-client.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'
import { MemoryCounters } from '../core/counters.js'

const releases: (() => void)[] = []
const hold = defineSkill({
  id: 'hold',
  description: 'works until the test lets it finish',
  handler: async (ctx) => {
    await ctx.working()
    await new Promise<void>((resolve) => releases.push(resolve))
  },
})
const ask = defineSkill({
  id: 'ask',
  description: 'asks, then answers',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput('which month?')
    await ctx.complete(`report for ${ctx.text}`)
  },
})
const echo = defineSkill({ id: 'echo', description: 'echo', handler: (ctx) => ctx.complete(ctx.text) })

let server: TestServer
/** The test's binding: every limit holds on JSON-RPC, HTTP+JSON and gRPC alike. */
let client: BindingClient
let binding: Binding
const start = async (under: Binding, options: TestServerOptions) => {
  binding = under
  server = await startTestServer({ ...options, grpc: under === 'GRPC' })
  client = server.client(under, wireCheck)
}
/** An answer's status on the test's binding: HTTP's, or gRPC's code. */
const ok = () => (binding === 'GRPC' ? GrpcStatus.OK : 200)
const tooMany = () => (binding === 'GRPC' ? GrpcStatus.RESOURCE_EXHAUSTED : 429)
afterEach(async () => {
  for (const release of releases.splice(0)) release()
  await server?.close()
})

const tokens = {
  alice: { owner: 'alice', credential: 'key-a1' },
  alice2: { owner: 'alice', credential: 'key-a2' },
  carol: { owner: 'carol', tenant: 'acme', credential: 'key-c' },
  dave: { owner: 'dave', tenant: 'acme', credential: 'key-d' },
}
const send = (skill: string, extra: Record<string, unknown> = {}, token = 'alice') =>
  client.call('SendMessage', { message: userMessage('go', { skill, ...extra }), configuration: { returnImmediately: true } }, { token })

async function taskCount(token = 'alice'): Promise<number> {
  return (await client.result('ListTasks', {}, { token })).totalSize
}

describe('fresh turns per sliding hour', () => {
  it.each(EVERY_BINDING)('refuses the turn past the cap with 429 and the seconds until the oldest turn leaves the window, writing nothing (%s)', async (under) => {
    let clock = Date.parse('2026-12-01T10:00:00Z')
    await start(under, { skills: [echo, ask], tokens, maxTurnsPerHour: 2, limitCounters: new MemoryCounters(() => clock) })
    expect((await send('echo')).status).toBe(ok())
    clock += 10 * 60_000
    expect((await send('echo')).status).toBe(ok())
    clock += 20 * 60_000
    const refused = await send('echo')
    expect(refused.status).toBe(tooMany())
    expect(refused.headers.get('retry-after')).toBe('1800')
    expect(refused.error).toMatchObject({ reason: 'UNSUPPORTED_OPERATION', message: expect.stringContaining('at most 2 per hour per owner') })
    expect(await taskCount()).toBe(2)
    // Another owner has a cap of their own.
    expect((await send('echo', {}, 'carol')).status).toBe(ok())
    // The first turn leaves the window: one more fits, and the next waits for the second one.
    clock += 30 * 60_000
    expect((await send('echo')).status).toBe(ok())
    expect((await send('echo')).headers.get('retry-after')).toBe('600')
  })

  it.each(EVERY_BINDING)('counts only messages that start a turn: answering a paused task and repeating a messageId do not (%s)', async (under) => {
    await start(under, { skills: [echo, ask], tokens, maxTurnsPerHour: 2 })
    const task = (await send('ask')).result.task
    await expect.poll(async () => (await client.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    const answer = userMessage('March', { taskId: task.id })
    expect((await client.call('SendMessage', { message: answer })).result.task.status.state).toBe('TASK_STATE_COMPLETED')
    const repeat = userMessage('again', { skill: 'echo' })
    expect((await client.call('SendMessage', { message: repeat })).status).toBe(ok())
    expect((await client.call('SendMessage', { message: repeat })).result.task).toBeDefined()
    expect((await send('echo')).status).toBe(tooMany())
  })

  it.each(EVERY_BINDING)('counts a whole tenant together when configured per tenant (%s)', async (under) => {
    await start(under, { skills: [echo], tokens, maxTurnsPerHour: 1, turnLimitPer: 'tenant' })
    expect((await send('echo', {}, 'carol')).status).toBe(ok())
    const refused = await send('echo', {}, 'dave')
    expect(refused.status).toBe(tooMany())
    expect(refused.error!.message).toContain('per tenant')
    // Alice is in no tenant: her own cap.
    expect((await send('echo', {}, 'alice')).status).toBe(ok())
  })
})

describe('occupied tasks per tenant', () => {
  it.each(EVERY_BINDING)('refuses a new task while the cap is working, with 429 and no Retry-After; finished and paused tasks free their places (%s)', async (under) => {
    await start(under, { skills: [hold, ask], tokens, maxOccupiedTasksPerTenant: 2 })
    expect((await send('hold', {}, 'carol')).status).toBe(ok())
    expect((await send('hold', {}, 'dave')).status).toBe(ok())
    const full = await send('hold', {}, 'carol')
    expect(full.status).toBe(tooMany())
    expect(full.headers.get('retry-after')).toBeNull()
    expect(full.error!.message).toContain('at most 2 per tenant')
    expect(await taskCount('carol')).toBe(1)
    // A finished task frees its place; a paused one occupies none.
    releases.shift()!()
    await expect.poll(async () => (await send('ask', {}, 'dave')).status).toBe(ok())
    const asking = (await client.result('ListTasks', { pageSize: 1 }, { token: 'dave' })).tasks[0]
    await expect.poll(async () => (await client.result('GetTask', { id: asking.id }, { token: 'dave' })).status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    expect((await send('hold', {}, 'carol')).status).toBe(ok())
    expect((await send('hold', {}, 'dave')).status).toBe(tooMany())
    // Answering is never refused, even at the cap.
    const answer = userMessage('March', { taskId: asking.id })
    expect((await client.call('SendMessage', { message: answer }, { token: 'dave' })).result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('concurrent streams per API key', () => {
  it.each(EVERY_BINDING)("refuses a key its next stream at the cap, while the owner's other key still streams (%s)", async (under) => {
    await start(under, { skills: [hold], tokens, maxStreamsPerKey: 1 })
    const first = await client.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'hold' }) }, { token: 'alice' })
    expect(first.status).toBe(ok())
    const second = await client.call('SendStreamingMessage', { message: userMessage('go', { skill: 'hold' }) }, { token: 'alice' })
    expect(second.status).toBe(tooMany())
    expect(second.error!.message).toContain('on this API key: at most 1')
    expect(await taskCount()).toBe(1)
    const other = await client.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'hold' }) }, { token: 'alice2' })
    expect(other.status).toBe(ok())
  })
})
