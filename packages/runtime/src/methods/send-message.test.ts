import { afterEach, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ name: 'echo', parts: ctx.text })
    await ctx.complete('done')
  },
})

let gateOpen: () => void = () => {}
const gated = defineSkill({
  id: 'gated',
  description: 'waits for the test',
  handler: async (ctx) => {
    await ctx.working()
    await new Promise<void>((resolve) => (gateOpen = resolve))
    await ctx.complete()
  },
})

const ask = defineSkill({
  id: 'ask',
  description: 'asks, then answers',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput('your name?')
    await ctx.artifact({ name: 'greeting', parts: `hi ${ctx.text}` })
  },
})

const replier = defineSkill({ id: 'reply', description: 'answers with a message', handler: (ctx) => ctx.reply(`re: ${ctx.text}`) })

let invocations = 0
const counted = defineSkill({
  id: 'counted',
  description: 'counts its runs',
  handler: async () => {
    invocations++
  },
})

let server: TestServer
afterEach(() => server?.close())
const start = async (extra = {}) => (server = await startTestServer({ check: wireCheck, skills: [echo, gated, ask, replier, counted], ...extra }))

describe('SendMessage', () => {
  it('blocks by default and answers the final task with artifacts and history', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('hello', { skill: 'echo' }) })
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.status.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(task.artifacts).toEqual([{ artifactId: expect.any(String), name: 'echo', parts: [{ text: 'hello' }] }])
    expect(task.history.map((m: any) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT'])
    expect(task.history[0]).toMatchObject({ taskId: task.id, contextId: task.contextId })
  })

  it('with returnImmediately answers the SUBMITTED/WORKING snapshot while the work continues', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('x', { skill: 'gated' }), configuration: { returnImmediately: true } })
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state)
    await expect.poll(async () => (await server.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_WORKING')
    gateOpen()
    await expect.poll(async () => (await server.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('applies historyLength on Send and Get: unset all, 0 none, n the last n', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('hello', { skill: 'echo' }), configuration: { historyLength: 0 } })
    expect(task).not.toHaveProperty('history')
    expect((await server.result('GetTask', { id: task.id })).history).toHaveLength(2)
    expect((await server.result('GetTask', { id: task.id, historyLength: 0 })).history).toBeUndefined()
    const last = await server.result('GetTask', { id: task.id, historyLength: 1 })
    expect(last.history).toHaveLength(1)
    expect(last.history[0].role).toBe('ROLE_AGENT')
  })

  it('generates a contextId when absent and keeps a client one', async () => {
    await start()
    const generated = (await server.result('SendMessage', { message: userMessage('a', { skill: 'echo' }) })).task
    expect(generated.contextId).toMatch(/[0-9a-f-]{36}/)
    const kept = (await server.result('SendMessage', { message: userMessage('b', { skill: 'echo', contextId: 'conv-1' }) })).task
    expect(kept.contextId).toBe('conv-1')
  })

  it('refuses a taskId/contextId mismatch and an unknown taskId', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('a', { skill: 'ask' }) })
    const mismatch = await server.rpc('SendMessage', { message: userMessage('b', { taskId: task.id, contextId: 'other' }) })
    expect(mismatch.body.error.code).toBe(-32602)
    expect(mismatch.body.error.data[0].fieldViolations[0].field).toBe('params.message.contextId')
    const unknown = await server.rpc('SendMessage', { message: userMessage('b', { taskId: 'no-such-task' }) })
    expect(unknown.body.error.code).toBe(-32001)
  })

  it('answers a message to a terminal task with -32004 saying to start a new task in the same context', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('a', { skill: 'echo' }) })
    const reply = await server.rpc('SendMessage', { message: userMessage('again', { taskId: task.id }) })
    expect(reply.body.error.code).toBe(-32004)
    expect(reply.body.error.message).toContain('new task')
    expect(reply.body.error.message).toContain(task.contextId)
    const { task: next } = await server.result('SendMessage', { message: userMessage('again', { skill: 'echo', contextId: task.contextId }) })
    expect(next.contextId).toBe(task.contextId)
    expect(next.id).not.toBe(task.id)
  })

  it('refuses a message to a task that is still running', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('x', { skill: 'gated' }), configuration: { returnImmediately: true } })
    const reply = await server.rpc('SendMessage', { message: userMessage('more', { taskId: task.id }) })
    expect(reply.body.error.code).toBe(-32004)
    expect(reply.body.error.message).toContain('still')
    gateOpen()
  })

  it('treats messageId as an idempotency key per owner', async () => {
    await start()
    invocations = 0
    const message = userMessage('once', { skill: 'counted' })
    const first = (await server.result('SendMessage', { message })).task
    const again = (await server.result('SendMessage', { message })).task
    expect(again.id).toBe(first.id)
    expect(invocations).toBe(1)
    const bobs = (await server.result('SendMessage', { message }, { token: 'bob' })).task
    expect(bobs.id).not.toBe(first.id)
    expect(invocations).toBe(2)
  })

  it('joins concurrent retries of one messageId to a single task', async () => {
    await start()
    invocations = 0
    const message = userMessage('once', { skill: 'counted' })
    const replies = await Promise.all(Array.from({ length: 5 }, () => server.result('SendMessage', { message })))
    expect(new Set(replies.map((r) => r.task.id)).size).toBe(1)
    expect(invocations).toBe(1)
  })

  it('answers a direct Message when the skill replies without task output', async () => {
    await start()
    const result = await server.result('SendMessage', { message: userMessage('ping', { skill: 'reply', contextId: 'c-9' }) })
    expect(result.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 're: ping' }], contextId: 'c-9' })
    expect(result.task).toBeUndefined()
  })

  it('resumes a paused task: the handler runs again with the new message and the history', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('start', { skill: 'ask' }) })
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    expect(task.status.message.parts).toEqual([{ text: 'your name?' }])
    const resumed = (await server.result('SendMessage', { message: userMessage('Ada', { taskId: task.id }) })).task
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED')
    expect(resumed.artifacts[0].parts).toEqual([{ text: 'hi Ada' }])
    expect(resumed.history.map((m: any) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER'])
  })

  it('refuses an output mode the skill cannot produce with -32005', async () => {
    await start()
    const reply = await server.rpc('SendMessage', { message: userMessage('x', { skill: 'echo' }), configuration: { acceptedOutputModes: ['image/png'] } })
    expect(reply.body.error.code).toBe(-32005)
    const ok = await server.rpc('SendMessage', { message: userMessage('x', { skill: 'echo' }), configuration: { acceptedOutputModes: ['text/*'] } })
    expect(ok.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('deterministic routing', () => {
  it('takes metadata.skill first', async () => {
    await start()
    const message = { ...userMessage('x', { skill: 'echo' }), parts: [{ data: { skill: 'reply' } }] }
    expect((await server.result('SendMessage', { message })).task.artifacts[0].name).toBe('echo')
  })

  it('then the first data part carrying a skill key', async () => {
    await start()
    const message = { ...userMessage('x'), parts: [{ text: 'please echo' }, { data: { other: 1 } }, { data: { skill: 'echo' } }, { data: { skill: 'reply' } }] }
    expect((await server.result('SendMessage', { message })).task.artifacts[0].name).toBe('echo')
  })

  it('then the only registered skill', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    expect((await server.result('SendMessage', { message: userMessage('x') })).task.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('rejects prose to a multi-skill agent, and an unknown skill naming it and listing no others', async () => {
    await start()
    const prose = (await server.result('SendMessage', { message: userMessage('please list my invoices') })).task
    expect(prose.status.state).toBe('TASK_STATE_REJECTED')
    expect(prose.status.message.parts[0].text).toContain('names no skill')
    const unknown = (await server.result('SendMessage', { message: userMessage('x', { skill: 'purge' }) })).task
    expect(unknown.status.state).toBe('TASK_STATE_REJECTED')
    const text = unknown.status.message.parts[0].text
    expect(text).toContain('"purge"')
    for (const other of ['echo', 'gated', 'ask', 'reply', 'counted']) expect(text).not.toContain(other)
  })
})
