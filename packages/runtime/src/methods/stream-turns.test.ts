import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import type { SseEvent } from '../testing/sse-client.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

/** Pauses twice (input, then auth), then completes with an artifact. */
const interview = defineSkill({
  id: 'interview',
  description: 'asks, asks for auth, answers',
  handler: async (ctx) => {
    const turns = ctx.history.filter((m) => m.role === 'ROLE_USER').length
    if (turns === 1) return ctx.requireInput('your name?')
    if (turns === 2) return ctx.requireAuth('sign in, please')
    await ctx.artifact({ name: 'greeting', parts: `hi ${ctx.text}` })
  },
})
const replier = defineSkill({ id: 'reply', description: 'answers with a message', handler: (ctx) => ctx.reply(`re: ${ctx.text}`) })
const worker = defineSkill({
  id: 'work',
  description: 'works, then replies',
  handler: async (ctx) => {
    await ctx.working()
    return ctx.reply('done')
  },
})

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ check: wireCheck, skills: [interview, replier, worker] })
})
afterAll(() => server.close())

const result = (event: SseEvent) => event.data.result
const stateOf = (event: SseEvent) => result(event).task?.status.state ?? result(event).statusUpdate?.status.state

describe('SubscribeToTask', () => {
  it('stays open through INPUT_REQUIRED and AUTH_REQUIRED until the task is terminal', async () => {
    const { task } = await server.result('SendMessage', { message: userMessage('start', { skill: 'interview' }) })
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    const watcher = await server.stream('SubscribeToTask', { id: task.id })
    const snapshot = (await watcher.next())!
    expect(result(snapshot).task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')

    // Someone else answers the task; the subscriber sees each turn and stays for the next.
    const auth = await server.result('SendMessage', { message: userMessage('Ada', { taskId: task.id }) })
    expect(auth.task.status.state).toBe('TASK_STATE_AUTH_REQUIRED')
    await expect.poll(() => watcher.events.map(stateOf).at(-1)).toBe('TASK_STATE_AUTH_REQUIRED')
    expect(watcher.events.length).toBeGreaterThan(1)
    await server.result('SendMessage', { message: userMessage('token', { taskId: task.id }) })

    const events = await watcher.ended
    expect(events.map(stateOf).filter(Boolean)).toEqual([
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ])
    expect(events.some((e) => result(e).artifactUpdate?.artifact.parts[0].text === 'hi token')).toBe(true)
  })
})

describe('SendStreamingMessage', () => {
  it('ends at an interrupted state: one turn per stream', async () => {
    const events = await (await server.stream('SendStreamingMessage', { message: userMessage('start', { skill: 'interview' }) })).ended
    expect(events.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_INPUT_REQUIRED'])
  })

  it("answers a handler's direct reply as one message event", async () => {
    const events = await (await server.stream('SendStreamingMessage', { message: userMessage('ping', { skill: 'reply', contextId: 'c-reply' }) })).ended
    expect(events).toHaveLength(1)
    expect(Object.keys(result(events[0]!))).toEqual(['message'])
    expect(result(events[0]!).message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 're: ping' }], contextId: 'c-reply' })
    // SendMessage keeps answering {message}.
    const sent = await server.result('SendMessage', { message: userMessage('ping', { skill: 'reply' }) })
    expect(Object.keys(sent)).toEqual(['message'])
  })

  it('answers a repeat of a direct-reply message with the same one message event', async () => {
    const message = userMessage('ping', { skill: 'reply' })
    const first = await (await server.stream('SendStreamingMessage', { message })).ended
    const again = await (await server.stream('SendStreamingMessage', { message })).ended
    expect(again.map((e) => result(e))).toEqual(first.map((e) => result(e)))
  })

  it('streams the task as usual when the handler touched it before replying', async () => {
    const events = await (await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'work' }) })).ended
    expect(Object.keys(result(events[0]!))).toEqual(['task'])
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED')
    expect(result(events.at(-1)!).statusUpdate.status.message.parts).toEqual([{ text: 'done' }])
  })
})
