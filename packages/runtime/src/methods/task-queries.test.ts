import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ name: 'echo', parts: ctx.text })
  },
})
const ask = defineSkill({ id: 'ask', description: 'asks', handler: (ctx) => ctx.requireInput('?') })
const fail = defineSkill({ id: 'fail', description: 'fails', handler: (ctx) => ctx.fail('no') })

let server: TestServer
afterEach(() => server?.close())

const send = async (skill: string, extra: Record<string, unknown> = {}) => (await server.result('SendMessage', { message: userMessage(skill, { skill, ...extra }) })).task

describe('ListTasks', () => {
  it('lists newest status first, with totalSize and an opaque cursor that walks every task once', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    const made: string[] = []
    for (let i = 0; i < 7; i++) {
      made.push((await send('echo')).id)
      await sleep(2) // distinct status timestamps, so the order is observable
    }
    const seen: string[] = []
    let pageToken = ''
    do {
      const page = await server.result('ListTasks', { pageSize: 3, ...(pageToken ? { pageToken } : {}) })
      expect(page.totalSize).toBe(7)
      expect(page.pageSize).toBe(3)
      expect(page.tasks.length).toBeLessThanOrEqual(3)
      seen.push(...page.tasks.map((t: any) => t.id))
      pageToken = page.nextPageToken
      expect(typeof pageToken).toBe('string')
    } while (pageToken)
    expect(seen).toEqual([...made].reverse())
  })

  it('defaults pageSize to 50 and refuses values outside 1..100', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    expect((await server.result('ListTasks', {})).pageSize).toBe(50)
    for (const pageSize of [0, 101, 1.5]) {
      const reply = await server.rpc('ListTasks', { pageSize })
      expect(reply.body.error.data[0].fieldViolations[0].field).toBe('params.pageSize')
    }
  })

  it('refuses a page token it did not issue, naming the field', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    const reply = await server.rpc('ListTasks', { pageToken: 'forged' })
    expect(reply.body.error.code).toBe(-32602)
    expect(reply.body.error.data[0].fieldViolations[0].field).toBe('params.pageToken')
  })

  it('filters by contextId, status and statusTimestampAfter', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo, ask, fail] })
    await send('echo', { contextId: 'c1' })
    await send('ask', { contextId: 'c1' })
    await sleep(5)
    const cutoff = new Date().toISOString()
    await sleep(5)
    const failed = await send('fail', { contextId: 'c2' })
    const ids = async (params: object) => (await server.result('ListTasks', params)).tasks.map((t: any) => t.status.state)
    expect(await ids({ contextId: 'c1' })).toHaveLength(2)
    expect(await ids({ status: 'TASK_STATE_INPUT_REQUIRED' })).toEqual(['TASK_STATE_INPUT_REQUIRED'])
    const recent = await server.result('ListTasks', { statusTimestampAfter: cutoff })
    expect(recent.tasks.map((t: any) => t.id)).toEqual([failed.id])
    expect(recent.totalSize).toBe(1)
    const bad = await server.rpc('ListTasks', { statusTimestampAfter: 'yesterday' })
    expect(bad.body.error.data[0].fieldViolations[0].field).toBe('params.statusTimestampAfter')
    const badState = await server.rpc('ListTasks', { status: 'done' })
    expect(badState.body.error.data[0].fieldViolations[0].field).toBe('params.status')
  })

  it('leaves artifacts out unless includeArtifacts, and applies historyLength', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    await send('echo')
    const plain = (await server.result('ListTasks', {})).tasks[0]
    expect(plain).not.toHaveProperty('artifacts')
    const full = (await server.result('ListTasks', { includeArtifacts: true, historyLength: 0 })).tasks[0]
    expect(full.artifacts[0].name).toBe('echo')
    expect(full).not.toHaveProperty('history')
  })

  it('answers an empty list with tasks: [] and an empty nextPageToken', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    expect(await server.result('ListTasks', {})).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 })
  })
})

describe('CancelTask', () => {
  it('cancels a paused task and answers -32002 for a terminal one', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo, ask] })
    const paused = await send('ask')
    const canceled = await server.result('CancelTask', { id: paused.id })
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED')
    const again = await server.rpc('CancelTask', { id: paused.id })
    expect(again.body.error).toMatchObject({ code: -32002, data: [{ reason: 'TASK_NOT_CANCELABLE' }] })
    const done = await send('echo')
    expect((await server.rpc('CancelTask', { id: done.id })).body.error.code).toBe(-32002)
  })

  it('answers -32001 for an unknown task', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo] })
    expect((await server.rpc('CancelTask', { id: 'missing' })).body.error.code).toBe(-32001)
    expect((await server.rpc('GetTask', { id: 'missing' })).body.error).toMatchObject({ code: -32001, message: 'Task not found: missing' })
  })
})

describe('ListTasks byte budget', () => {
  // Each echo task carries its ~20 KB text twice (history and artifact).
  const big = (i: number) => `${i}:${'x'.repeat(20_000)}`

  it('ends a page at maxListTasksBytes and carries on from the cursor, every task exactly once', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo], maxListTasksBytes: 100_000 })
    const made: string[] = []
    for (let i = 0; i < 7; i++) {
      made.push((await server.result('SendMessage', { message: userMessage(big(i), { skill: 'echo' }) })).task.id)
      await sleep(2)
    }
    const pages: string[][] = []
    let pageToken = ''
    do {
      const page = await server.result('ListTasks', { pageSize: 50, includeArtifacts: true, ...(pageToken ? { pageToken } : {}) })
      expect(page.totalSize).toBe(7)
      expect(Buffer.byteLength(JSON.stringify(page.tasks))).toBeLessThanOrEqual(100_000)
      pages.push(page.tasks.map((t: any) => t.id))
      pageToken = page.nextPageToken
    } while (pageToken)
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1])
    expect(pages.flat()).toEqual([...made].reverse())
  })

  it('reads from the store at most one task more than a page of large tasks answers', async () => {
    // The store decodes every task it hands out: count them.
    class CountingStore extends MemoryStore {
      handedOut = 0
      override async list(query: Parameters<MemoryStore['list']>[0]) {
        const page = await super.list(query)
        this.handedOut += page.records.length
        return page
      }
    }
    const store = new CountingStore()
    server = await startTestServer({ check: wireCheck, skills: [echo], store, maxListTasksBytes: 100_000 })
    for (let i = 0; i < 12; i++) await server.result('SendMessage', { message: userMessage(big(i), { skill: 'echo' }) })
    store.handedOut = 0
    const page = await server.result('ListTasks', { pageSize: 50, includeArtifacts: true })
    expect(page.tasks).toHaveLength(2)
    expect(store.handedOut).toBeLessThanOrEqual(page.tasks.length + 1)
  })

  it('still answers one task when a single task is over the budget, so paging moves on', async () => {
    server = await startTestServer({ check: wireCheck, skills: [echo], maxListTasksBytes: 1000 })
    for (let i = 0; i < 2; i++) await server.result('SendMessage', { message: userMessage(big(i), { skill: 'echo' }) })
    const first = await server.result('ListTasks', {})
    expect(first.tasks).toHaveLength(1)
    const second = await server.result('ListTasks', { pageToken: first.nextPageToken })
    expect(second.tasks).toHaveLength(1)
    expect(second.nextPageToken).toBe('')
    expect(second.tasks[0].id).not.toBe(first.tasks[0].id)
  })
})
