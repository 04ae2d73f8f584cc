import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Logger } from '../log/logger.js'
import { MemoryStore } from '../store/memory-store.js'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { defineJob, type Job } from '../skills/job.js'
import { MemoryJobQueue } from './memory-job-queue.js'
import { JOB_RUNNER } from '../run/enqueue-job.js'
import type { JobWorker } from './job-worker.js'
import { closeAfterEach, handBackCase } from './__fixture__/job-server.js'

// Jobs on the memory queue, through a listening server: what a caller sees and what the queue holds.

const quiet: Logger = { warn: () => {}, error: () => {} }
const open: Array<{ close(): Promise<void> } | JobWorker> = []
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await ('stop' in item ? item.stop() : item.close())
})

function gate(): { wait: Promise<void>; open(): void } {
  let release!: () => void
  return { wait: new Promise<void>((resolve) => (release = resolve)), open: () => release() }
}

const statementInput = z.object({ month: z.string().regex(/^\d{4}-\d{2}$/) })

async function serve(jobs: Job[], options: { maxConcurrentRunsPerOwner?: number; store?: MemoryStore; queue?: MemoryJobQueue } = {}) {
  const queue = options.queue ?? new MemoryJobQueue()
  const enqueueing = defineSkill({
    id: 'enqueue',
    description: 'hands its work to the job named in the data part',
    handler: async (ctx) => {
      const { job, input } = ctx.data as { job: string; input: unknown }
      await ctx.enqueue(jobs.find((j) => j.name === job)!, input as never, 'queued')
    },
  })
  const echo = defineSkill({ id: 'echo', description: 'answers at once', handler: (ctx) => ctx.complete('echo') })
  const server = await startTestServer({
    skills: [enqueueing, echo],
    jobs: { queue, jobs },
    logger: quiet,
    ...(options.store ? { store: options.store } : {}),
    ...(options.maxConcurrentRunsPerOwner ? { maxConcurrentRunsPerOwner: options.maxConcurrentRunsPerOwner } : {}),
  })
  open.push(server)
  return { server, queue }
}

function startWorker(server: TestServer): JobWorker {
  const worker = server.exchange.jobWorker({ concurrency: 2, handOverPollMs: 10 })
  open.push(worker)
  void worker.start()
  return worker
}

const send = (server: TestServer, job: string, input: unknown) =>
  server.result('SendMessage', { message: { ...userMessage('go', { skill: 'enqueue' }), parts: [{ data: { job, input } }] } }).then((r) => r.task)
const stateOf = async (server: TestServer, id: string) => (await server.result('GetTask', { id })).status.state

describe('jobs on the memory queue', () => {
  handBackCase(() => new MemoryJobQueue(), closeAfterEach())

  it('enqueue answers WORKING with the slot freed; a worker completes the task later, with its artifact', async () => {
    const statement = defineJob({
      name: 'statement',
      input: statementInput,
      run: async (ctx, input) => {
        await ctx.artifact({ name: 'statement', parts: `statement for ${input.month} (attempt ${ctx.attempt})` })
      },
    })
    const { server, queue } = await serve([statement], { maxConcurrentRunsPerOwner: 1 })
    const task = await send(server, 'statement', { month: '2026-11' })
    expect(task.status.state).toBe('TASK_STATE_WORKING')
    expect(task.status.message.parts).toEqual([{ text: 'queued' }])
    expect(server.exchange.activeRuns).toBe(0)
    // The owner's one run slot is free while the job waits: another send runs at once.
    expect((await server.result('SendMessage', { message: userMessage('x', { skill: 'echo' }) })).task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(queue.pending).toBe(1)
    startWorker(server)
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_COMPLETED')
    const done = await server.result('GetTask', { id: task.id })
    expect(done.artifacts).toEqual([{ artifactId: expect.any(String), name: 'statement', parts: [{ text: 'statement for 2026-11 (attempt 1)' }] }])
    expect(queue.pending).toBe(0)
  })

  it('a streaming send follows the task through its job to COMPLETED, in one stream', async () => {
    const statement = defineJob({ name: 'statement', input: statementInput, run: (ctx, input) => ctx.artifact({ artifactId: 'out', parts: input.month }).then(() => undefined) })
    const { server } = await serve([statement])
    startWorker(server)
    const message = { ...userMessage('go', { skill: 'enqueue' }), parts: [{ data: { job: 'statement', input: { month: '2026-12' } } }] }
    const events = await (await server.stream('SendStreamingMessage', { message })).ended
    const kinds = events.map(({ data }) => {
      const result = data.result
      return result.task ? `task ${result.task.status.state}` : result.statusUpdate ? result.statusUpdate.status.state : `artifact ${result.artifactUpdate.artifact.artifactId}`
    })
    expect(kinds).toEqual(['task TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'artifact out', 'TASK_STATE_COMPLETED'])
  })

  it('a job asks for input; the answer resumes the skill, which enqueues again, and the next job completes', async () => {
    const queue = new MemoryJobQueue()
    const seen: string[] = []
    const reconcile = defineJob({
      name: 'reconcile',
      input: z.object({ account: z.string().optional() }),
      run: async (ctx, input) => {
        seen.push(`${input.account ?? '-'} (attempt ${ctx.attempt})`)
        if (!input.account) return ctx.requireInput('Which account?')
        await ctx.complete(`reconciled ${input.account}`)
      },
    })
    const skill = defineSkill({
      id: 'reconcile',
      description: 'reconciles an account on a job',
      handler: (ctx) => ctx.enqueue(reconcile, ctx.history.length > 1 ? { account: ctx.text } : {}),
    })
    const server = await startTestServer({ skills: [skill], jobs: { queue, jobs: [reconcile] }, logger: quiet })
    open.push(server)
    startWorker(server)
    const { task } = await server.result('SendMessage', { message: userMessage('start') })
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_INPUT_REQUIRED')
    expect((await server.result('GetTask', { id: task.id })).status.message.parts).toEqual([{ text: 'Which account?' }])
    const answered = await server.result('SendMessage', { message: userMessage('ACC-7', { taskId: task.id, contextId: task.contextId }) })
    expect(answered.task.status.state).toBe('TASK_STATE_WORKING')
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_COMPLETED')
    expect(seen).toEqual(['- (attempt 1)', 'ACC-7 (attempt 1)'])
  })

  it("the task's lease follows the job's: a job waiting past many run leases is not swept, and completes", async () => {
    const queue = new MemoryJobQueue()
    const late = defineJob({ name: 'late', input: z.object({}), run: (ctx) => ctx.complete('done late') })
    const skill = defineSkill({ id: 'late', description: 'queues a job', handler: (ctx) => ctx.enqueue(late, {}) })
    // Leases of 100 ms: the sweep (every 25 ms) fails a WORKING task whose run's lease lapsed.
    const server = await startTestServer({ skills: [skill], jobs: { queue, jobs: [late] }, runLeaseMs: 100, logger: quiet })
    open.push(server)
    const { task } = await server.result('SendMessage', { message: userMessage('x') })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await stateOf(server, task.id)).toBe('TASK_STATE_WORKING')
    startWorker(server)
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_COMPLETED')
  })

  it('a run slot is free while the job runs: the owner at its cap of one still runs another skill', async () => {
    const held = gate()
    const started = gate()
    const slow = defineJob({ name: 'slow', input: z.object({}), run: async () => (started.open(), held.wait) })
    const { server } = await serve([slow], { maxConcurrentRunsPerOwner: 1 })
    startWorker(server)
    const task = await send(server, 'slow', {})
    await started.wait
    expect(await stateOf(server, task.id)).toBe('TASK_STATE_WORKING')
    expect((await server.result('SendMessage', { message: userMessage('x', { skill: 'echo' }) })).task.status.state).toBe('TASK_STATE_COMPLETED')
    held.open()
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_COMPLETED')
  })

  it('a job that always throws is retried with backoff, dead-lettered, and its task FAILED with the reason', async () => {
    const attempts: number[] = []
    const broken = defineJob({
      name: 'broken',
      input: z.object({}),
      retries: 2,
      backoff: { delayMs: 30, exponential: true },
      run: (ctx) => {
        attempts.push(Date.now())
        throw new Error(`ledger unreachable (attempt ${ctx.attempt})`)
      },
    })
    const { server, queue } = await serve([broken])
    startWorker(server)
    const task = await send(server, 'broken', {})
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_FAILED')
    const failed = await server.result('GetTask', { id: task.id })
    expect(failed.status.message.parts).toEqual([{ text: 'job "broken" failed after 3 attempts: ledger unreachable (attempt 3)' }])
    expect(attempts).toHaveLength(3)
    // Backoff: 30 ms, then 60 ms.
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(29)
    expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(59)
    expect(queue.deadLetters()).toEqual([{ job: expect.objectContaining({ taskId: task.id, job: 'broken' }), reason: 'ledger unreachable (attempt 3)', attempts: 3 }])
  })

  it('an attempt past its timeoutMs is cut and retried, then dead-lettered with the reason', async () => {
    const aborted: string[] = []
    const stuck = defineJob({
      name: 'stuck',
      input: z.object({}),
      retries: 1,
      backoff: { delayMs: 1 },
      timeoutMs: 100,
      // Never returns: the deadline ends each attempt all the same.
      run: (ctx) => new Promise(() => ctx.signal.addEventListener('abort', () => aborted.push(`attempt ${ctx.attempt}`))),
    })
    const { server, queue } = await serve([stuck])
    startWorker(server)
    const task = await send(server, 'stuck', {})
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_FAILED')
    expect((await server.result('GetTask', { id: task.id })).status.message.parts).toEqual([
      { text: 'job "stuck" failed after 2 attempts: the attempt ran past the job\'s timeoutMs (100 ms)' },
    ])
    expect(aborted).toEqual(['attempt 1', 'attempt 2'])
    expect(queue.pending).toBe(0)
  })

  it("a retry after a throw sees the earlier attempt's artifact and does not make it again", async () => {
    const flaky = defineJob({
      name: 'flaky',
      input: z.object({}),
      retries: 1,
      backoff: { delayMs: 1 },
      run: async (ctx) => {
        if (!ctx.artifacts.some((a) => a.artifactId === 'part-1')) await ctx.artifact({ artifactId: 'part-1', parts: 'first half' })
        if (ctx.attempt === 1) throw new Error('the second half failed')
        await ctx.artifact({ artifactId: 'part-2', parts: 'second half' })
      },
    })
    const { server } = await serve([flaky])
    startWorker(server)
    const task = await send(server, 'flaky', {})
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_COMPLETED')
    const done = await server.result('GetTask', { id: task.id })
    expect(done.artifacts.map((a: { artifactId: string }) => a.artifactId)).toEqual(['part-1', 'part-2'])
  })

  it('cancel of a queued task skips its job; cancel of a running one aborts it, unretried', async () => {
    const runs: string[] = []
    const started = gate()
    const watched = defineJob({
      name: 'watched',
      input: z.object({ label: z.string() }),
      retries: 3,
      backoff: { delayMs: 1 },
      run: async (ctx, input) => {
        runs.push(input.label)
        started.open()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        await ctx.artifact({ parts: 'after the cancel' })
      },
    })
    const { server, queue } = await serve([watched])
    const queued = await send(server, 'watched', { label: 'queued' })
    expect((await server.result('CancelTask', { id: queued.id })).status.state).toBe('TASK_STATE_CANCELED')
    startWorker(server)
    const running = await send(server, 'watched', { label: 'running' })
    await started.wait
    expect((await server.result('CancelTask', { id: running.id })).status.state).toBe('TASK_STATE_CANCELED')
    await expect.poll(() => queue.pending).toBe(0)
    expect(runs).toEqual(['running'])
    const after = await server.result('GetTask', { id: running.id })
    expect(after.status.state).toBe('TASK_STATE_CANCELED')
    expect(after.artifacts).toBeUndefined()
    expect(queue.deadLetters()).toEqual([])
  })

  it('refuses an input its schema rejects, and a job the exchange was not given, naming what to send', async () => {
    const listed = defineJob({ name: 'listed', input: statementInput, run: () => {} })
    const unlisted = defineJob({ name: 'unlisted', input: z.object({}), run: () => {} })
    const errors: string[] = []
    const queue = new MemoryJobQueue()
    const skill = defineSkill({
      id: 'try',
      description: 'tries two bad enqueues',
      handler: async (ctx) => {
        for (const attempt of [() => ctx.enqueue(listed, { month: 'November' }), () => ctx.enqueue(unlisted, {})]) {
          await attempt().catch((error: Error) => errors.push(error.message))
        }
        await ctx.complete()
      },
    })
    const server = await startTestServer({ skills: [skill], jobs: { queue, jobs: [listed] }, logger: quiet })
    open.push(server)
    await server.result('SendMessage', { message: userMessage('x') })
    expect(errors[0]).toMatch(/^ctx\.enqueue\("listed"\): the input does not match the job's schema: .*month/s)
    expect(errors[1]).toBe('Job "unlisted" is not among the exchange\'s jobs: add it to jobs.jobs in createExchange, so workers can run it')
    // A job may hand on to another job, not to itself.
    const seen: string[] = []
    const again = defineJob({
      name: 'again',
      input: z.object({}),
      retries: 0,
      run: async (ctx) => {
        await ctx.enqueue(again, {}).catch((error: Error) => seen.push(error.message))
        await ctx.complete()
      },
    })
    const onJobs = await startTestServer({
      skills: [defineSkill({ id: 'start', description: 'enqueues again', handler: (ctx) => ctx.enqueue(again, {}) })],
      jobs: { queue: new MemoryJobQueue(), jobs: [again] },
      logger: quiet,
    })
    open.push(onJobs)
    startWorker(onJobs)
    const { task } = await onJobs.result('SendMessage', { message: userMessage('x') })
    await expect.poll(() => stateOf(onJobs, task.id)).toBe('TASK_STATE_COMPLETED')
    expect(seen).toEqual(['Job "again" cannot enqueue itself on its own task: throw to have it retried, or enqueue another job'])
    expect(queue.pending).toBe(0)
    expect(() => defineJob({ name: 'x', input: z.object({}), run: () => {}, retries: -1 })).toThrow('Job "x" retries must be an integer of at least 0, got -1')
    expect(() => defineJob({ name: 'bad name', input: z.object({}), run: () => {} })).toThrow(/^Job name "bad name" must start/)
  })

  it("crash window: a job queued whose task kept its dead run's lease is taken over once that lease lapses", async () => {
    const store = new MemoryStore()
    const finish = defineJob({ name: 'finish', input: z.object({}), run: (ctx) => ctx.complete('finished by the job') })
    const queue = new MemoryJobQueue()
    const { server } = await serve([finish], { store, queue })
    // What a process that died between its enqueue and its WORKING write leaves: the task
    // SUBMITTED under its run's lease, and the job queued.
    const { task } = await server.result('SendMessage', { message: userMessage('x', { skill: 'echo' }) })
    const record = (await store.get(task.id))!
    const lapsesAt = Date.now() + 300
    await store.update(task.id, record.version, { task: { ...record.task, status: { state: 'TASK_STATE_SUBMITTED' } }, lease: { runner: 'dead-replica', until: lapsesAt } })
    const message = record.task.history![0]!
    await queue.enqueue(
      {
        key: `${task.id}/${message.messageId}/finish`,
        taskId: task.id,
        job: 'finish',
        input: {},
        messageId: message.messageId,
        principal: { owner: 'alice' },
        baseUrl: server.url,
      },
      { retries: 0, backoff: { delayMs: 1, exponential: false }, timeoutMs: 5000 },
    )
    startWorker(server)
    await expect.poll(() => stateOf(server, task.id)).toBe('TASK_STATE_COMPLETED')
    expect(Date.now()).toBeGreaterThanOrEqual(lapsesAt)
    const done = (await store.get(task.id))!
    expect(done.task.status.message?.parts).toEqual([{ text: 'finished by the job' }])
    expect(done.lease?.runner).toBe(JOB_RUNNER)
  })

  it('an enqueue retried with the same key stores one job', async () => {
    const queue = new MemoryJobQueue()
    const queued = { key: 't/m/j', taskId: 't', job: 'j', input: {}, messageId: 'm', principal: { owner: 'alice' }, baseUrl: 'http://127.0.0.1' }
    const settings = { retries: 0, backoff: { delayMs: 1, exponential: false }, timeoutMs: 1000 }
    await queue.enqueue(queued, settings)
    await queue.enqueue({ ...queued, input: { other: true } }, settings)
    expect(queue.pending).toBe(1)
  })
})

describe('MemoryJobQueue', () => {
  const queued = (key: string) => ({ key, taskId: key, job: 'j', input: {}, messageId: 'm', principal: { owner: 'alice' }, baseUrl: 'http://127.0.0.1' })
  const settings = { retries: 0, backoff: { delayMs: 1, exponential: false }, timeoutMs: 1000 }

  it('keeps done and dead jobs (their keys held, dead ones listed) for keepMs, then forgets them', async () => {
    const queue = new MemoryJobQueue({ keepMs: 200 })
    const runs: string[] = []
    const handle = await queue.work({
      run: async (job) => {
        runs.push(job.key)
        if (job.key === 'dies') throw new Error('no ledger')
      },
      dead: async () => {},
      concurrency: 2,
    })
    open.push({ stop: () => handle.stop(), start: async () => {} })
    await queue.enqueue(queued('done'), settings)
    await queue.enqueue(queued('dies'), settings)
    await expect.poll(() => queue.deadLetters()).toEqual([{ job: queued('dies'), reason: 'no ledger', attempts: 1 }])
    expect(queue.pending).toBe(0)
    // Within keepMs a repeated enqueue of a kept key stores nothing.
    await queue.enqueue(queued('done'), settings)
    expect(queue.size).toBe(2)
    expect(runs).toEqual(['done', 'dies'])
    await new Promise((resolve) => setTimeout(resolve, 250))
    expect(queue.deadLetters()).toEqual([])
    expect(queue.size).toBe(0)
    // Past it the key is free again.
    await queue.enqueue(queued('done'), settings)
    await expect.poll(() => runs).toEqual(['done', 'dies', 'done'])
  })
})
