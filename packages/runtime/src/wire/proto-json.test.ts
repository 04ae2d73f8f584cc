import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { editDistance } from './proto-json.js'
import { wireCheck } from '../testing/wire-schema.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})

const warnings: string[] = []
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ check: wireCheck, skills: [echo], allowPrivatePush: true, logger: { warn: (line) => warnings.push(line), error: () => {} } })
})
afterAll(() => server.close())

const fieldOf = (body: any): string | undefined => body.error?.data?.find((d: any) => d.fieldViolations)?.fieldViolations[0].field

/** Sends one message in a fresh context and returns the finished task. */
async function sendIn(contextId: string, text = 'hi') {
  return (await server.result('SendMessage', { message: userMessage(text, { contextId }) })).task
}

describe('ProtoJSON request fields under their proto names', () => {
  it('reads every SendMessage field under its proto name, nested messages and parts included', async () => {
    const result = await server.result('SendMessage', {
      message: { message_id: `m-proto-${Date.now()}`, role: 'ROLE_USER', context_id: 'ctx-proto', parts: [{ text: 'hi', media_type: 'text/plain' }] },
      configuration: { history_length: 0, return_immediately: false, accepted_output_modes: ['text/plain'] },
    })
    expect(result.task.contextId).toBe('ctx-proto')
    expect(result.task.history).toBeUndefined()
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED')
    const task = await server.result('GetTask', { id: result.task.id })
    expect(task.history[0].parts[0]).toEqual({ text: 'hi', mediaType: 'text/plain' })
  })

  it('GetTask honours history_length', async () => {
    const task = await sendIn('ctx-get')
    expect((await server.result('GetTask', { id: task.id, history_length: 0 })).history).toBeUndefined()
    expect((await server.result('GetTask', { id: task.id, historyLength: '1' })).history).toHaveLength(1)
  })

  it('ListTasks filters by context_id and pages by page_size, with include_artifacts', async () => {
    await sendIn('ctx-list-a')
    await sendIn('ctx-list-a')
    await sendIn('ctx-list-b')
    const page = await server.result('ListTasks', { context_id: 'ctx-list-a', page_size: 1, include_artifacts: true })
    expect(page.totalSize).toBe(2)
    expect(page.tasks).toHaveLength(1)
    expect(page.tasks[0].contextId).toBe('ctx-list-a')
    expect(page.tasks[0].artifacts).toHaveLength(1)
    const next = await server.result('ListTasks', { contextId: 'ctx-list-a', pageSize: 1, page_token: page.nextPageToken })
    expect(next.tasks.map((t: any) => t.contextId)).toEqual(['ctx-list-a'])
  })

  it('CreateTaskPushNotificationConfig takes task_id', async () => {
    const task = await sendIn('ctx-push')
    const config = await server.result('CreateTaskPushNotificationConfig', { task_id: task.id, url: 'http://127.0.0.1:9/hook' })
    expect(config.taskId).toBe(task.id)
    const list = await server.result('ListTaskPushNotificationConfigs', { task_id: task.id, page_size: null, page_token: null })
    expect(list.configs).toHaveLength(1)
  })
})

describe('ProtoJSON field rules', () => {
  it('refuses one field sent under both names with -32602 naming it', async () => {
    const reply = await server.rpc('GetTask', { id: 'x', historyLength: 1, history_length: 2 })
    expect(reply.body.error.code).toBe(-32602)
    expect(fieldOf(reply.body)).toBe('params.historyLength')
    expect(reply.body.error.message).toContain('"historyLength" and as "history_length"')
    const nested = await server.rpc('SendMessage', { message: { ...userMessage('hi'), context_id: 'a', contextId: 'a' } })
    expect(fieldOf(nested.body)).toBe('params.message.contextId')
  })

  it('takes null as the default of an optional field, and as "missing" for a required one', async () => {
    const task = await sendIn('ctx-null')
    expect((await server.result('GetTask', { id: task.id, historyLength: null, tenant: null })).id).toBe(task.id)
    const sent = await server.result('SendMessage', { message: { ...userMessage('hi'), contextId: null, metadata: null }, configuration: null, metadata: null })
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED')
    const missing = await server.rpc('GetTask', { id: null })
    expect(fieldOf(missing.body)).toBe('params.id')
  })

  it('keeps null where it is a value: a data part holding JSON null', async () => {
    const sent = await server.result('SendMessage', { message: { ...userMessage('hi'), parts: [{ data: null }] } })
    const task = await server.result('GetTask', { id: sent.task.id })
    expect(task.history[0].parts).toEqual([{ data: null }])
  })

  it('ignores unknown fields, and logs those that look like a misspelt known field', async () => {
    const task = await sendIn('ctx-typo')
    warnings.length = 0
    const got = await server.result('GetTask', { id: task.id, histroyLength: 0, somethingElse: true })
    expect(got.history).toHaveLength(1)
    expect(warnings).toEqual(['a2a: ignored unknown field params.histroyLength; did you mean params.historyLength?'])
    warnings.length = 0
    await server.result('ListTasks', { contextID: 'ctx-typo' })
    expect(warnings).toEqual(['a2a: ignored unknown field params.contextID; did you mean params.contextId?'])
  })

  it('measures near misses as edits, a swap counting once', () => {
    expect(editDistance('historylength', 'histroylength')).toBe(1)
    expect(editDistance('pagesize', 'pagesise')).toBe(1)
    expect(editDistance('id', 'xyz')).toBeGreaterThan(1)
  })
})
