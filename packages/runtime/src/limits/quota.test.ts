import { afterEach, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { BINDINGS } from '../testing/binding-client.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { MemoryCounters } from './counters.js'

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
  server.rpc('SendMessage', { message: userMessage('go', { skill, ...extra }), configuration: { returnImmediately: true } }, { token })

async function taskCount(token = 'alice'): Promise<number> {
  return (await server.result('ListTasks', {}, { token })).totalSize
}

describe('fresh turns per sliding hour', () => {
  it('refuses the turn past the cap with 429 and the seconds until the oldest turn leaves the window, writing nothing', async () => {
    let clock = Date.parse('2026-12-01T10:00:00Z')
    server = await startTestServer({ skills: [echo, ask], tokens, maxTurnsPerHour: 2, limitCounters: new MemoryCounters(() => clock) })
    expect((await send('echo')).status).toBe(200)
    clock += 10 * 60_000
    expect((await send('echo')).status).toBe(200)
    clock += 20 * 60_000
    const refused = await send('echo')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1800')
    expect(refused.body.error).toMatchObject({ code: -32004, message: expect.stringContaining('at most 2 per hour per owner') })
    expect(await taskCount()).toBe(2)
    // Another owner has a cap of their own.
    expect((await send('echo', {}, 'carol')).status).toBe(200)
    // The first turn leaves the window: one more fits, and the next waits for the second one.
    clock += 30 * 60_000
    expect((await send('echo')).status).toBe(200)
    expect((await send('echo')).headers.get('retry-after')).toBe('600')
  })

  it('counts only messages that start a turn: answering a paused task and repeating a messageId do not', async () => {
    server = await startTestServer({ skills: [echo, ask], tokens, maxTurnsPerHour: 2 })
    const { body } = await send('ask')
    const task = body.result.task
    await expect.poll(async () => (await server.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    const answer = userMessage('March', { taskId: task.id })
    expect((await server.rpc('SendMessage', { message: answer })).body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    const repeat = userMessage('again', { skill: 'echo' })
    expect((await server.rpc('SendMessage', { message: repeat })).status).toBe(200)
    expect((await server.rpc('SendMessage', { message: repeat })).body.result.task).toBeDefined()
    expect((await send('echo')).status).toBe(429)
  })

  it('counts a whole tenant together when configured per tenant', async () => {
    server = await startTestServer({ skills: [echo], tokens, maxTurnsPerHour: 1, turnLimitPer: 'tenant' })
    expect((await send('echo', {}, 'carol')).status).toBe(200)
    const refused = await send('echo', {}, 'dave')
    expect(refused.status).toBe(429)
    expect(refused.body.error.message).toContain('per tenant')
    // Alice is in no tenant: her own cap.
    expect((await send('echo', {}, 'alice')).status).toBe(200)
  })
})

describe('occupied tasks per tenant', () => {
  it('refuses a new task while the cap is working, with 429 and no Retry-After; finished and paused tasks free their places', async () => {
    server = await startTestServer({ skills: [hold, ask], tokens, maxOccupiedTasksPerTenant: 2 })
    expect((await send('hold', {}, 'carol')).status).toBe(200)
    expect((await send('hold', {}, 'dave')).status).toBe(200)
    const full = await send('hold', {}, 'carol')
    expect(full.status).toBe(429)
    expect(full.headers.get('retry-after')).toBeNull()
    expect(full.body.error.message).toContain('at most 2 per tenant')
    expect(await taskCount('carol')).toBe(1)
    // A finished task frees its place; a paused one occupies none.
    releases.shift()!()
    await expect.poll(async () => (await send('ask', {}, 'dave')).status).toBe(200)
    const asking = (await server.result('ListTasks', { pageSize: 1 }, { token: 'dave' })).tasks[0]
    await expect.poll(async () => (await server.result('GetTask', { id: asking.id }, { token: 'dave' })).status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    expect((await send('hold', {}, 'carol')).status).toBe(200)
    expect((await send('hold', {}, 'dave')).status).toBe(429)
    // Answering is never refused, even at the cap.
    const answer = userMessage('March', { taskId: asking.id })
    expect((await server.rpc('SendMessage', { message: answer }, { token: 'dave' })).body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('concurrent streams per API key', () => {
  it('refuses a key its next stream at the cap, while the owner\'s other key still streams', async () => {
    server = await startTestServer({ skills: [hold], tokens, maxStreamsPerKey: 1 })
    const first = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'hold' }) }, { token: 'alice' })
    expect(first.status).toBe(200)
    const second = await server.rpc('SendStreamingMessage', { message: userMessage('go', { skill: 'hold' }) }, { token: 'alice' })
    expect(second.status).toBe(429)
    expect(second.body.error.message).toContain('on this API key: at most 1')
    expect(await taskCount()).toBe(1)
    const other = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'hold' }) }, { token: 'alice2' })
    expect(other.status).toBe(200)
  })
})

describe.each(BINDINGS)('limits over %s', (binding) => {
  it('refuse with 429 and Retry-After before anything is written', async () => {
    server = await startTestServer({ skills: [echo], tokens, maxTurnsPerHour: 1 })
    const client = server.client(binding)
    const message = () => ({ message: userMessage('go', { skill: 'echo' }) })
    expect((await client.call('SendMessage', message())).status).toBe(200)
    const refused = await client.call('SendMessage', message())
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3590)
    expect(refused.error!.message).toContain('at most 1 per hour per owner')
    expect((await client.result('ListTasks', {})).totalSize).toBe(1)
  })
})
