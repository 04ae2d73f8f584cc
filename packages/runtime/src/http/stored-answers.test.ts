import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { BINDINGS } from '../testing/binding-client.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import type { Part } from '../wire/types.js'

// A handler that keeps changing the parts it sent after the task settled: the store holds what
// was written, and every answer shows that, whichever of its texts the server sends.
const keepsEditing = defineSkill({
  id: 'keeps-editing',
  description: 'Completes, then changes its artifact parts in place',
  handler: async (ctx) => {
    const parts: Part[] = [{ text: 'as stored' }]
    await ctx.artifact({ name: 'result', parts })
    await ctx.complete()
    parts[0] = { text: 'changed after the write' }
    parts.push({ text: 'added after the write' })
  },
})

const noHistory = defineSkill({ id: 'plain', description: 'Completes with one artifact', handler: async (ctx) => void (await ctx.artifact({ parts: 'ok' })) })

describe('answers show tasks as stored', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ skills: [keepsEditing, noHistory] })
  })
  afterAll(() => server.close())

  for (const binding of BINDINGS) {
    it(`SendMessage and GetTask agree on the stored task (${binding})`, async () => {
      const client = server.client(binding)
      const { task } = await client.result('SendMessage', { message: userMessage('go', { skill: 'keeps-editing' }) })
      expect(task.status.state).toBe('TASK_STATE_COMPLETED')
      expect(task.artifacts).toEqual([expect.objectContaining({ name: 'result', parts: [{ text: 'as stored' }] })])
      expect(await client.result('GetTask', { id: task.id })).toEqual(task)
    })
  }

  it('applies historyLength and includeArtifacts to a task sent from its stored text', async () => {
    const { task } = await server.result('SendMessage', { message: userMessage('hello', { skill: 'plain' }), configuration: { historyLength: 0 } })
    expect(task.history).toBeUndefined()
    expect(task.artifacts).toHaveLength(1)
    const whole = await server.result('GetTask', { id: task.id })
    expect(whole.history).toHaveLength(1)
    expect(whole).toEqual({ ...task, history: whole.history })
    expect((await server.result('GetTask', { id: task.id, historyLength: 0 })).history).toBeUndefined()
    expect((await server.result('GetTask', { id: task.id, historyLength: 5 })).history).toEqual(whole.history)
    const listed = await server.result('ListTasks', { includeArtifacts: false, pageSize: 1 })
    expect(listed.tasks[0].artifacts).toBeUndefined()
  })

  it('answers the repeat of a message with the stored task, byte for byte the answer a GetTask gets', async () => {
    const message = userMessage('again', { skill: 'plain' })
    const first = await server.post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message } }), { 'A2A-Version': '1.0', Authorization: 'Bearer alice' })
    const repeat = await server.post(JSON.stringify({ jsonrpc: '2.0', id: 'r', method: 'SendMessage', params: { message } }), {
      'A2A-Version': '1.0',
      Authorization: 'Bearer alice',
    })
    expect(first.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } })
    expect(repeat.body).toEqual({ jsonrpc: '2.0', id: 'r', result: first.body.result })
  })
})
