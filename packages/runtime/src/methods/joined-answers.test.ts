import { afterEach, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

let release: () => void = () => {}
let runs = 0
/** Asks once; the answer's run waits for the test, then completes naming the answer it ran with. */
const approve = defineSkill({
  id: 'approve',
  description: 'asks, then waits for the test before completing',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput('approve?')
    runs++
    await new Promise<void>((resolve) => (release = resolve))
    await ctx.complete(`done with ${ctx.text}`)
  },
})

let server: TestServer
afterEach(() => server?.close())

const texts = (task: any) => task.history.map((m: any) => `${m.role === 'ROLE_USER' ? 'user' : 'agent'}:${m.parts[0].text}`)

describe('two answers to one question', () => {
  it('both land in arrival order, neither refused, and the run the first resumed closes the task', async () => {
    server = await startTestServer({ check: wireCheck, skills: [approve] })
    const { task } = await server.result('SendMessage', { message: userMessage('pay invoice 7', { skill: 'approve' }) })
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    // Sent together (in-process, so neither waits behind the other on a connection): one resumes
    // the task, the other finds it taken and joins.
    const alice = { owner: 'alice' }
    const send = (text: string) => server.exchange.call(alice, 'SendMessage', { message: userMessage(text, { taskId: task.id }) }) as Promise<any>
    const answers = [send('yes from the agent'), send('yes from a person')]
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Sent over HTTP while the first answer's run works: joins as well.
    const late = server.result('SendMessage', { message: userMessage('late yes', { taskId: task.id }), configuration: { returnImmediately: true } })
    expect((await late).task.status.state).toBe('TASK_STATE_WORKING')
    release()
    const [first, second] = (await Promise.all(answers)).map((reply) => reply.task)
    for (const answered of [first, second]) expect(answered.status.state).toBe('TASK_STATE_COMPLETED')
    expect(runs).toBe(1)
    const final = await server.result('GetTask', { id: task.id })
    const history = texts(final)
    expect(history.slice(0, 2)).toEqual(['user:pay invoice 7', 'agent:approve?'])
    expect(history.filter((line: string) => line.startsWith('user:yes'))).toHaveLength(2)
    expect(history.indexOf('user:late yes')).toBeGreaterThan(Math.max(history.indexOf('user:yes from the agent'), history.indexOf('user:yes from a person')))
    expect(history.at(-1)).toMatch(/^agent:done with (yes from the agent|yes from a person)$/)
  })

  it('a retry of a joined answer is a repeat, not a third answer', async () => {
    server = await startTestServer({ check: wireCheck, skills: [approve] })
    const { task } = await server.result('SendMessage', { message: userMessage('pay', { skill: 'approve' }) })
    await server.result('SendMessage', { message: userMessage('one', { taskId: task.id }), configuration: { returnImmediately: true } })
    const joined = userMessage('two', { taskId: task.id })
    await server.result('SendMessage', { message: joined, configuration: { returnImmediately: true } })
    await server.result('SendMessage', { message: joined, configuration: { returnImmediately: true } })
    release()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const final = await server.result('GetTask', { id: task.id })
    expect(texts(final).filter((line: string) => line === 'user:two')).toHaveLength(1)
  })

  it('a settled task still refuses a message naming it', async () => {
    server = await startTestServer({ check: wireCheck, skills: [approve] })
    const { task } = await server.result('SendMessage', { message: userMessage('pay', { skill: 'approve' }) })
    await server.result('SendMessage', { message: userMessage('one', { taskId: task.id }), configuration: { returnImmediately: true } })
    release()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const reply = await server.rpc('SendMessage', { message: userMessage('after', { taskId: task.id }) })
    expect(reply.body.error.code).toBe(-32004)
    expect(reply.body.error.message).toContain('COMPLETED')
  })
})
