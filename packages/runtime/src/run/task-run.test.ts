import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import type { Logger } from '../log/logger.js'
import { defineSkill, type Skill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import type { TaskChanges, TaskRecord } from '../store/store.js'
import { gate } from '../testing/gate.js'
import { recordCalls } from '../testing/store-calls.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'
import { NotJsonEncodableError } from '../wire/json-safe.js'
import { DeadlineExceededError, TaskCanceledError, TaskTimeoutError } from './run-errors.js'

let server: TestServer
let lines: string[]
const logger: Logger = { warn: (line) => lines.push(line), error: (line) => lines.push(line) }
afterEach(() => server?.close())

async function start(skills: Skill[], options: Partial<TestServerOptions> = {}) {
  lines = []
  server = await startTestServer({ skills, logger, ...options })
  return server
}

const send = async (skill: string, extra: Record<string, unknown> = {}, token = 'alice') =>
  (await server.result('SendMessage', { message: userMessage(skill, { skill }), ...extra }, { token })).task
const sendNow = (skill: string, token = 'alice') => send(skill, { configuration: { returnImmediately: true } }, token)
const stateOf = async (id: string) => (await server.result('GetTask', { id })).status.state

describe('task context', () => {
  it('working() is idempotent once working: no write, no version bump', async () => {
    const { store, writes } = recordCalls(new MemoryStore(), { shared: true })
    const skill = defineSkill({
      id: 'w',
      description: 'w',
      handler: async (ctx) => {
        await ctx.working()
        await ctx.working()
        await ctx.working()
        await ctx.complete()
      },
    })
    await start([skill], { store })
    const task = await send('w')
    // One merged update of the first turn's writes: one WORKING, then the completion.
    expect(writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_COMPLETED'])
    expect((await store.get(task.id))!.version).toBe(3)
  })

  it('its methods and getters work taken off it (destructured), each the same function every time it is read', async () => {
    let same = false
    const skill = defineSkill({
      id: 'd',
      description: 'destructures its context',
      handler: async (ctx) => {
        // biome-ignore lint/suspicious/noSelfCompare: two reads of a getter, which must give the same function
        same = ctx.artifact === ctx.artifact && ctx.complete === ctx.complete
        const { working, artifact, complete, text, taskId, signal } = ctx
        await working('on it')
        await artifact({ name: 'echo', parts: `${text} (${taskId === ctx.taskId && !signal.aborted})` })
        await complete('done')
      },
    })
    await start([skill])
    const task = await send('d')
    expect(same).toBe(true)
    expect(task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'done' }] } })
    expect(task.artifacts[0].parts).toEqual([{ text: 'd (true)' }])
  })

  it('a working() with a message is a status update that is written', async () => {
    const { store } = recordCalls(new MemoryStore(), { shared: true })
    const skill = defineSkill({
      id: 'w',
      description: 'w',
      handler: async (ctx) => {
        await ctx.working()
        await ctx.working('step 2')
      },
    })
    await start([skill], { store })
    const task = await send('w')
    expect((await store.get(task.id))!.version).toBe(4)
    expect(task.history.map((m: any) => m.parts[0].text)).toEqual(['w', 'step 2'])
  })

  it('artifact() appends chunks under one id, and replaces without append', async () => {
    const skill = defineSkill({
      id: 'a',
      description: 'a',
      handler: async (ctx) => {
        const id = await ctx.artifact({ name: 'log', parts: 'one ' })
        await ctx.artifact({ artifactId: id, parts: 'two', append: true, lastChunk: true })
        const other = await ctx.artifact({ name: 'draft', parts: 'first' })
        await ctx.artifact({ artifactId: other, name: 'final', parts: [{ data: { ok: true } }] })
      },
    })
    await start([skill])
    const task = await send('a')
    expect(task.artifacts).toEqual([
      { artifactId: expect.any(String), name: 'log', parts: [{ text: 'one ' }, { text: 'two' }] },
      { artifactId: expect.any(String), name: 'final', parts: [{ data: { ok: true } }] },
    ])
  })

  it('refuses artifact data JSON cannot carry, and the handler can go on', async () => {
    let refused: unknown
    const skill = defineSkill({
      id: 'nan',
      description: 'nan',
      handler: async (ctx) => {
        await ctx.artifact({ parts: [{ data: { n: Number.NaN } }] }).catch((error) => (refused = error))
        await ctx.complete('fine')
      },
    })
    await start([skill])
    const task = await send('nan')
    expect(refused).toBeInstanceOf(NotJsonEncodableError)
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task).not.toHaveProperty('artifacts')
  })

  it('requireAuth pauses in AUTH_REQUIRED and a message naming the task resumes it', async () => {
    const skill = defineSkill({
      id: 'auth',
      description: 'auth',
      handler: async (ctx) => {
        if (ctx.history.length === 1) return ctx.requireAuth('connect your calendar, then reply')
        await ctx.complete(`resumed with ${ctx.text}`)
      },
    })
    await start([skill])
    const task = await send('auth')
    expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED')
    const resumed = (await server.result('SendMessage', { message: userMessage('done', { taskId: task.id }) })).task
    expect(resumed.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'resumed with done' }] } })
  })

  it('gives the handler the message, the history and the principal', async () => {
    let seen: any
    const skill = defineSkill({
      id: 'see',
      description: 'see',
      handler: (ctx) => {
        seen = { text: ctx.text, data: ctx.data, owner: ctx.principal.owner, history: ctx.history.length, skill: ctx.skillId }
      },
    })
    await start([skill])
    await server.result('SendMessage', { message: { ...userMessage('hi', { skill: 'see' }), parts: [{ text: 'hi' }, { data: { n: 1 } }] } })
    expect(seen).toEqual({ text: 'hi', data: { n: 1 }, owner: 'alice', history: 1, skill: 'see' })
  })
})

describe('failures', () => {
  it('a throwing handler fails its task, logs one scrubbed line, and the server goes on', async () => {
    const boom = defineSkill({
      id: 'boom',
      description: 'boom',
      handler: () => {
        throw new Error('secret\ninjected line')
      },
    })
    await start([boom])
    const task = await send('boom')
    expect(task.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'skill "boom" failed' }] } })
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain('\n')
    expect((await send('boom')).status.state).toBe('TASK_STATE_FAILED')
  })

  it('a store that throws while the run settles leaves the last stored state and logs one line', async () => {
    class FailingOnSettle extends MemoryStore {
      // Shared by replicas: the task is stored before its run, which then writes WORKING.
      override readonly capabilities = { filtersTenant: true, filtersScope: true }
      override async update(id: string, version: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
        if (changes.task.status.state === 'TASK_STATE_COMPLETED') throw new Error('disk full')
        return super.update(id, version, changes)
      }
    }
    const skill = defineSkill({
      id: 'x',
      description: 'x',
      handler: async (ctx) => {
        await ctx.working()
        // Past the first turn: WORKING is stored before the completion is tried.
        await new Promise((resolve) => setImmediate(resolve))
      },
    })
    await start([skill], { store: new FailingOnSettle() })
    const task = await send('x')
    expect(task.status.state).toBe('TASK_STATE_WORKING')
    expect(await stateOf(task.id)).toBe('TASK_STATE_WORKING')
    expect(lines.filter((l) => l.includes('finalize failed'))).toHaveLength(1)
  })

  it('a first turn whose one update fails tells the handler, which may still fail the task', async () => {
    let fail = true
    class FailingOnce extends MemoryStore {
      // Shared by replicas: the run's first-turn writes are one update after the insert.
      override readonly capabilities = { filtersTenant: true, filtersScope: true }
      override async update(id: string, version: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
        if (fail && changes.task.status.state === 'TASK_STATE_COMPLETED') {
          fail = false
          throw new Error('disk full')
        }
        return super.update(id, version, changes)
      }
    }
    let heard: unknown
    const skill = defineSkill({
      id: 'x',
      description: 'x',
      handler: async (ctx) => {
        await ctx.artifact({ parts: 'a' })
        await ctx.complete().catch((error: unknown) => {
          heard = error
          throw error
        })
      },
    })
    const { store, writes } = recordCalls(new FailingOnce(), { shared: true })
    await start([skill], { store })
    const task = await send('x')
    expect((heard as Error).message).toBe('disk full')
    // Not stored, so the run was still open: the throw fails the task as any handler's would.
    expect(task.status.state).toBe('TASK_STATE_FAILED')
    expect(task.artifacts).toBeUndefined()
    expect(writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_COMPLETED', 'update TASK_STATE_FAILED'])
    expect(lines).toEqual([expect.stringContaining('skill "x" threw')])
    expect(server.exchange.activeRuns).toBe(0)
  })

  it('a throwing retention trimmer is logged and the task stays settled', async () => {
    class FailingTrimmer extends MemoryStore {
      override async trimSettled(): Promise<string[]> {
        throw new Error('trim broke')
      }
    }
    const skill = defineSkill({ id: 'x', description: 'x', handler: () => {} })
    await start([skill], { store: new FailingTrimmer() })
    const task = await send('x')
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(lines).toEqual([expect.stringContaining('retention trim failed')])
  })
})

describe('cancel', () => {
  it('a cancel that lands once the task is stored, before the handler started, means the handler never runs', async () => {
    const inserted = gate()
    const release = gate()
    class SlowInsert extends MemoryStore {
      // Shared by replicas: the task is inserted before its run starts.
      override readonly capabilities = { filtersTenant: true, filtersScope: true }
      override async create(record: TaskRecord) {
        await super.create(record)
        // Readable (and cancelable) from here; the run starts once the insert has answered.
        inserted.open()
        await release.opened
      }
    }
    let ran = false
    const skill = defineSkill({
      id: 'never',
      description: 'never',
      handler: () => {
        ran = true
      },
    })
    await start([skill], { store: new SlowInsert() })
    const sending = send('never', { message: userMessage('x', { skill: 'never', contextId: 'cx' }), configuration: { returnImmediately: true } })
    await inserted.opened
    const [listed] = (await server.result('ListTasks', { contextId: 'cx' })).tasks
    expect((await server.result('CancelTask', { id: listed.id })).status.state).toBe('TASK_STATE_CANCELED')
    release.open()
    const task = await sending
    await sleep(50)
    expect(ran).toBe(false)
    expect(await stateOf(task.id)).toBe('TASK_STATE_CANCELED')
  })

  it('cuts the signal, and a late completion cannot resurrect the task', async () => {
    const release = gate()
    let aborted = false
    let lateError: unknown
    const stubborn = defineSkill({
      id: 'stubborn',
      description: 'ignores its signal',
      handler: async (ctx) => {
        await ctx.working()
        ctx.signal.addEventListener('abort', () => (aborted = true))
        await release.opened
        await ctx.complete('too late').catch((error) => (lateError = error))
      },
    })
    await start([stubborn])
    const task = await sendNow('stubborn')
    await expect.poll(() => stateOf(task.id)).toBe('TASK_STATE_WORKING')
    expect((await server.result('CancelTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED')
    expect(aborted).toBe(true)
    release.open()
    await expect.poll(() => lateError).toBeInstanceOf(TaskCanceledError)
    expect(await stateOf(task.id)).toBe('TASK_STATE_CANCELED')
  })

  it('a blocking send waiting on the run answers CANCELED when another request cancels', async () => {
    const slow = defineSkill({
      id: 'slow',
      description: 'waits for its signal',
      handler: async (ctx) => {
        await ctx.working()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      },
    })
    await start([slow])
    const blocking = send('slow', { message: userMessage('x', { skill: 'slow', contextId: 'cx' }) })
    await expect.poll(async () => (await server.result('ListTasks', { contextId: 'cx' })).tasks[0]?.status.state).toBe('TASK_STATE_WORKING')
    const [listed] = (await server.result('ListTasks', { contextId: 'cx' })).tasks
    await server.result('CancelTask', { id: listed.id })
    expect((await blocking).status.state).toBe('TASK_STATE_CANCELED')
  })
})

describe('timeout', () => {
  it('fails the task with "task timed out" and every later mutation fails wrapping the deadline', async () => {
    let lateError: any
    const sleepy = defineSkill({
      id: 'sleepy',
      description: 'too slow',
      handler: async (ctx) => {
        await ctx.working()
        await sleep(300)
        await ctx.artifact({ parts: 'late' }).catch((error) => (lateError = error))
      },
    })
    await start([sleepy], { taskTimeoutMs: 100 })
    const task = await send('sleepy')
    expect(task.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'task timed out' }] } })
    await expect.poll(() => lateError, { timeout: 2000 }).toBeInstanceOf(TaskTimeoutError)
    expect(lateError.cause).toBeInstanceOf(DeadlineExceededError)
    expect(await stateOf(task.id)).toBe('TASK_STATE_FAILED')
  })
})

describe('shutdown', () => {
  it('stores live runs CANCELED, refuses new runs with -32004, keeps answering reads', async () => {
    const deaf = defineSkill({
      id: 'deaf',
      description: 'ignores its signal',
      handler: async (ctx) => {
        await ctx.working()
        await sleep(60_000)
      },
    })
    const ask = defineSkill({ id: 'ask', description: 'ask', handler: (ctx) => ctx.requireInput('?') })
    await start([deaf, ask])
    const paused = await send('ask')
    const runs = [await sendNow('deaf'), await sendNow('deaf')]
    await expect.poll(() => server.exchange.activeRuns).toBe(2)
    await server.exchange.shutdown({ timeoutMs: 2000 })
    for (const run of runs) expect(await stateOf(run.id)).toBe('TASK_STATE_CANCELED')
    const refused = await server.rpc('SendMessage', { message: userMessage('x', { skill: 'ask' }) })
    expect(refused.body.error.code).toBe(-32004)
    const resume = await server.rpc('SendMessage', { message: userMessage('x', { taskId: paused.id }) })
    expect(resume.body.error.code).toBe(-32004)
    expect((await server.result('ListTasks', {})).totalSize).toBe(3)
  })

  it('leaves a task that paused while shutdown began paused: its final update in flight is not overwritten CANCELED', async () => {
    const reached = gate()
    const release = gate()
    class SlowPause extends MemoryStore {
      override async update(id: string, version: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
        if (changes.task.status.state === 'TASK_STATE_INPUT_REQUIRED') {
          reached.open()
          await release.opened
        }
        return super.update(id, version, changes)
      }
    }
    const ask = defineSkill({ id: 'ask', description: 'ask', handler: (ctx) => ctx.requireInput('which one?') })
    // Shared: the task is inserted before its run, so the pause is stored as the first turn's one update.
    const { store, writes } = recordCalls(new SlowPause(), { shared: true })
    await start([ask], { store })
    const task = await sendNow('ask')
    await reached.opened
    const shutdown = server.exchange.shutdown({ timeoutMs: 2000 })
    await sleep(20)
    release.open()
    await shutdown
    expect(await stateOf(task.id)).toBe('TASK_STATE_INPUT_REQUIRED')
    expect(writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_INPUT_REQUIRED'])
    expect(lines).toEqual([])
  })
})

describe('shutdown deadline', () => {
  it('returns when its deadline passes even if a run cannot be settled', async () => {
    const stuck = gate()
    class HangsOnCancel extends MemoryStore {
      override async update(id: string, version: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
        if (changes.task.status.state === 'TASK_STATE_CANCELED') await stuck.opened
        return super.update(id, version, changes)
      }
    }
    const hold = defineSkill({
      id: 'hold',
      description: 'holds',
      handler: async (ctx) => {
        await ctx.working()
        await sleep(60_000)
      },
    })
    await start([hold], { store: new HangsOnCancel() })
    await sendNow('hold')
    await expect.poll(() => server.exchange.activeRuns).toBe(1)
    const started = Date.now()
    await server.exchange.shutdown({ timeoutMs: 200 })
    expect(Date.now() - started).toBeLessThan(2000)
    stuck.open()
  })
})

describe('per-owner run cap', () => {
  it('refuses a send past the cap and a resume while every slot is taken, before writing anything', async () => {
    const release = gate()
    const hold = defineSkill({
      id: 'hold',
      description: 'holds a slot',
      handler: async (ctx) => {
        await ctx.working()
        await release.opened
      },
    })
    const ask = defineSkill({ id: 'ask', description: 'ask', handler: async (ctx) => (ctx.history.length === 1 ? ctx.requireInput('?') : undefined) })
    await start([hold, ask], { maxConcurrentRunsPerOwner: 2 })
    const paused = await send('ask')
    await sendNow('hold')
    await sendNow('hold')
    const before = (await server.result('ListTasks', {})).totalSize
    const refused = await server.rpc('SendMessage', { message: userMessage('x', { skill: 'hold' }) })
    expect(refused.body.error.code).toBe(-32004)
    expect(refused.body.error.message).toContain('concurrent task runs')
    const resume = await server.rpc('SendMessage', { message: userMessage('x', { taskId: paused.id }) })
    expect(resume.body.error.code).toBe(-32004)
    expect((await server.result('ListTasks', {})).totalSize).toBe(before)
    expect(await stateOf(paused.id)).toBe('TASK_STATE_INPUT_REQUIRED')
    expect((await sendNow('hold', 'bob')).status.state).not.toBe('TASK_STATE_REJECTED')
    release.open()
    await expect.poll(() => server.exchange.activeRuns).toBe(0)
    expect((await server.result('SendMessage', { message: userMessage('x', { taskId: paused.id }) })).task.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('a negative cap means unlimited', async () => {
    const release = gate()
    const hold = defineSkill({ id: 'hold', description: 'holds', handler: () => release.opened })
    await start([hold], { maxConcurrentRunsPerOwner: -1 })
    for (let i = 0; i < 20; i++) await sendNow('hold')
    expect(server.exchange.activeRuns).toBe(20)
    release.open()
  })
})

describe('retention per tier', () => {
  const echo = defineSkill({ id: 'echo', description: 'echo', handler: () => {} })
  const ask = defineSkill({ id: 'ask', description: 'ask', handler: (ctx) => ctx.requireInput('?') })
  const tokens = { alice: { owner: 'alice' }, 'alice-ro': { owner: 'alice', scopes: ['read'] }, bob: { owner: 'bob' } }

  it('keeps the newest settled tasks of each tier and never touches another tier', async () => {
    await start([echo, ask], { settledTaskRetention: 3, tokens })
    const other = await send('echo', {}, 'alice-ro')
    const bobs = await send('echo', {}, 'bob')
    const mine: string[] = []
    for (let i = 0; i < 5; i++) {
      mine.push((await send('echo')).id)
      await sleep(2)
    }
    const paused = await send('ask')
    const listed = (await server.result('ListTasks', {})).tasks.map((t: any) => t.id)
    expect(listed).toEqual(expect.arrayContaining([...mine.slice(2), other.id, paused.id]))
    expect(listed).toHaveLength(5)
    expect((await server.rpc('GetTask', { id: mine[0] })).body.error.code).toBe(-32001)
    expect((await server.result('GetTask', { id: bobs.id }, { token: 'bob' })).id).toBe(bobs.id)
  })

  it('cancels the oldest paused tasks past the paused bound', async () => {
    await start([ask], { pausedTaskRetention: 2, tokens })
    const first = await send('ask')
    await sleep(2)
    await send('ask')
    await sleep(2)
    await send('ask')
    expect(await stateOf(first.id)).toBe('TASK_STATE_CANCELED')
    const paused = await server.result('ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED' })
    expect(paused.totalSize).toBe(2)
  })

  it('reads a bound of 0 as the default of 64', async () => {
    await start([echo], { settledTaskRetention: 0 })
    for (let i = 0; i < 66; i++) await send('echo')
    expect((await server.result('ListTasks', {})).totalSize).toBe(64)
  })

  it('never trims in-flight tasks, and a negative bound leaves retention to the host', async () => {
    const release = gate()
    const hold = defineSkill({ id: 'hold', description: 'holds', handler: () => release.opened })
    await start([echo, hold], { settledTaskRetention: -1, pausedTaskRetention: -1 })
    const running = await sendNow('hold')
    for (let i = 0; i < 70; i++) await send('echo')
    expect((await server.result('ListTasks', {})).totalSize).toBe(71)
    expect(await stateOf(running.id)).not.toBe('TASK_STATE_CANCELED')
    release.open()
  })
})
