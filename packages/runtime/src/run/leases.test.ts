import { afterEach, describe, expect, it } from 'vitest'
import type { Logger } from '../log/logger.js'
import { defineSkill, type Skill } from '../skills/skill.js'
import { makeRecord } from '../store/conformance-fixtures.js'
import { MemoryStore } from '../store/memory-store.js'
import type { TaskChanges, TaskRecord } from '../store/store.js'
import { gate } from '../testing/gate.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'

let server: TestServer | undefined
let lines: string[] = []
const logger: Logger = { warn: (line) => lines.push(line), error: (line) => lines.push(line) }
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(skills: Skill[], options: Partial<TestServerOptions>) {
  lines = []
  server = await startTestServer({ skills, logger, ...options })
  return server
}

const LEASE_MS = 400
const wait = defineSkill({ id: 'wait', description: 'waits', handler: () => new Promise<void>(() => {}) })
const done = defineSkill({ id: 'done', description: 'completes at once', handler: (ctx) => ctx.complete() })
const ask = defineSkill({ id: 'ask', description: 'asks once', handler: (ctx) => (ctx.history.length === 1 ? ctx.requireInput('name?') : ctx.complete()) })

/** A task a stopped process left: state, and a lease of replica "gone" expiring at `until` (none: no lease). */
function left(id: string, state: 'TASK_STATE_WORKING' | 'TASK_STATE_SUBMITTED' | 'TASK_STATE_COMPLETED' | 'TASK_STATE_INPUT_REQUIRED', until?: number): TaskRecord {
  const record = makeRecord({ id, state, time: Date.now() - 60_000 })
  return { ...record, skill: 'wait', ...(until === undefined ? {} : { lease: { runner: 'gone', until } }) }
}

describe('run leases', () => {
  it('settles FAILED, at start-up and within a lease, the tasks whose lease expired or which have none, and no other', async () => {
    const store = new MemoryStore()
    const now = Date.now()
    await store.create(left('expired', 'TASK_STATE_WORKING', now - 1))
    await store.create(left('queued', 'TASK_STATE_SUBMITTED', now - 1))
    await store.create(left('leaseless', 'TASK_STATE_WORKING'))
    await store.create(left('soon', 'TASK_STATE_WORKING', now + 2000))
    await store.create(left('done', 'TASK_STATE_COMPLETED', now - 1))
    await store.create(left('paused', 'TASK_STATE_INPUT_REQUIRED', now - 1))
    const { result } = await start([wait], { store, runLeaseMs: LEASE_MS })
    const stateOf = async (id: string) => (await result('GetTask', { id })).status
    // The start-up sweep: nothing waits for a lease to pass for tasks already expired.
    await expect.poll(() => stateOf('expired'), { timeout: LEASE_MS / 2 }).toMatchObject({ state: 'TASK_STATE_FAILED' })
    expect(await stateOf('expired')).toMatchObject({ message: { role: 'ROLE_AGENT', parts: [{ text: expect.stringMatching(/^The agent stopped while working on this task/) }] } })
    expect(await stateOf('queued')).toMatchObject({
      state: 'TASK_STATE_FAILED',
      message: { parts: [{ text: expect.stringMatching(/^The agent stopped before it could start on this task/) }] },
    })
    expect((await stateOf('leaseless')).state).toBe('TASK_STATE_FAILED')
    expect((await stateOf('soon')).state).toBe('TASK_STATE_WORKING')
    await expect.poll(() => stateOf('soon'), { timeout: 4000 }).toMatchObject({ state: 'TASK_STATE_FAILED' })
    expect((await stateOf('done')).state).toBe('TASK_STATE_COMPLETED')
    expect((await stateOf('paused')).state).toBe('TASK_STATE_INPUT_REQUIRED')
    expect((await store.get('expired'))?.lease).toBeUndefined()
    expect(lines.filter((line) => line.includes('left TASK_STATE_'))).toHaveLength(4)
  })

  it('a subscriber of a task left behind gets the FAILED event as its last', async () => {
    const store = new MemoryStore()
    await store.create(left('orphan', 'TASK_STATE_WORKING', Date.now() + LEASE_MS / 2))
    const { stream } = await start([wait], { store, runLeaseMs: LEASE_MS })
    const reply = await stream('SubscribeToTask', { id: 'orphan' })
    const events = await reply.ended
    expect(events[0]?.data.result).toMatchObject({ task: { id: 'orphan', status: { state: 'TASK_STATE_WORKING' } } })
    expect(events.at(-1)?.data.result).toMatchObject({ statusUpdate: { taskId: 'orphan', status: { state: 'TASK_STATE_FAILED' } } })
  })

  it('renews the lease of a live run, which works on past many leases and completes', async () => {
    const store = new MemoryStore()
    const release = gate()
    const slow = defineSkill({
      id: 'slow',
      description: 'slow',
      handler: async (ctx) => {
        await ctx.working()
        await release.opened
        await ctx.complete('done')
      },
    })
    const { result } = await start([slow], { store, runLeaseMs: LEASE_MS })
    const task = (await result('SendMessage', { message: userMessage('go', { skill: 'slow' }), configuration: { returnImmediately: true } })).task
    const first = (await store.get(task.id))!.lease!
    expect(first.runner).toBe(server!.exchange.replicaId)
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS))
    const renewed = await store.get(task.id)
    expect(renewed?.task.status.state).toBe('TASK_STATE_WORKING')
    expect(renewed!.lease!.until).toBeGreaterThan(first.until + LEASE_MS)
    release.open()
    await expect.poll(async () => (await result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('a blocking answer whose resumed run could not start answers the FAILED task', async () => {
    class ReReadFails extends MemoryStore {
      failing = false
      override async get(id: string) {
        const record = await super.get(id)
        // The run's read before it starts: the resume has just stored the task WORKING.
        if (this.failing && record?.task.status.state === 'TASK_STATE_WORKING') {
          this.failing = false
          throw new Error('connection lost')
        }
        return record
      }
    }
    const store = new ReReadFails()
    await start([ask], { store, runLeaseMs: LEASE_MS })
    const paused = (await server!.result('SendMessage', { message: userMessage('go', { skill: 'ask' }) })).task
    store.failing = true
    const task = (await server!.result('SendMessage', { message: userMessage('ann', { taskId: paused.id }) })).task
    expect(task.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: expect.stringMatching(/could not start/) }] } })
  })

  it('a blocking send whose run could not write nor settle answers -31503 (HTTP 503, Retry-After), and the sweep settles the task once the store is back', async () => {
    class Unreachable extends MemoryStore {
      // Shared by replicas: the task is inserted before its run starts.
      override readonly capabilities = { filtersTenant: true, filtersScope: true }
      down = false
      override async get(id: string) {
        if (this.down) throw new Error('connection lost')
        return super.get(id)
      }
      override async update(id: string, version: number, changes: TaskChanges) {
        if (this.down) throw new Error('connection lost')
        return super.update(id, version, changes)
      }
      override async create(record: TaskRecord) {
        await super.create(record)
        this.down = true
      }
    }
    const store = new Unreachable()
    await start([done], { store, runLeaseMs: LEASE_MS })
    const reply = await server!.rpc('SendMessage', { message: userMessage('go', { skill: 'done' }) })
    expect(reply.status).toBe(503)
    expect(reply.headers.get('retry-after')).toBe('5')
    expect(reply.body.error).toMatchObject({ code: -31503, message: expect.stringMatching(/could not be started: the agent's database is unreachable/) })
    store.down = false
    const [id] = [...(await store.list({ owner: 'alice', pageSize: 10 })).records.map((r) => r.id)]
    await expect.poll(async () => (await store.get(id!))?.task.status.state, { timeout: 3 * LEASE_MS }).toBe('TASK_STATE_FAILED')
  })
})
