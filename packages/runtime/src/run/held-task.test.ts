import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill, type Skill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { SqliteStore } from '../store/sql/sqlite/sqlite-store.js'
import type { Store, TaskRecord } from '../store/store.js'
import { gate } from '../testing/gate.js'
import { recordCalls } from '../testing/store-calls.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'

// A new task on a store no other process writes, or on PostgresStore, which claims its message id
// first (Store.claimNewTask), is held in the process while its run's first turn lasts and inserted
// once, in its latest state (run/pending-writes.ts); on another store replicas share, or where a
// stream or push config hears of it first, it is inserted before its run starts, and the run's
// writes within that first turn are stored as one update carrying all their events, a version
// each. Counted through the real stores.

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const echo = defineSkill({
  id: 'echo',
  description: 'an artifact, then completes',
  handler: (ctx) => ctx.artifact({ name: 'echo', parts: ctx.text }).then(() => ctx.complete('done')),
})

const ioFirst = defineSkill({
  id: 'io-first',
  description: 'waits on a timer before its artifact',
  handler: async (ctx) => {
    await ctx.working()
    await sleep(5)
    await ctx.artifact({ name: 'late', parts: ctx.text })
    await ctx.complete('done')
  },
})

const askThenEcho = defineSkill({
  id: 'ask-echo',
  description: 'asks, then sends an artifact and completes',
  handler: (ctx) => (ctx.history.length === 1 ? ctx.requireInput('name?') : ctx.artifact({ name: 'echo', parts: ctx.text }).then(() => ctx.complete('done'))),
})

const send = async (skill: string, extra: Record<string, unknown> = {}) => (await server!.result('SendMessage', { message: userMessage('hello', { skill }), ...extra })).task

let sqlite: TestDatabase
let postgres: TestDatabase
const opened: (SqliteStore | PostgresStore)[] = []
beforeAll(async () => {
  ;[sqlite, postgres] = await Promise.all([openDatabase('sqlite'), openDatabase('postgres')])
})
afterAll(async () => {
  for (const store of opened) await store.close()
  await Promise.all([sqlite?.close(), postgres?.close()])
})

const stores: [string, () => Store][] = [
  ['MemoryStore', () => new MemoryStore()],
  [
    'SqliteStore',
    () => {
      const store = new SqliteStore(sqlite.url)
      opened.push(store)
      return store
    },
  ],
  [
    'PostgresStore (its claim taken first)',
    () => {
      const store = new PostgresStore(postgres.url, { max: 4 })
      opened.push(store)
      return store
    },
  ],
]

describe.each(stores)('on %s', (_, makeStore) => {
  const start = async (skills: Skill[]) => {
    const recorded = recordCalls(makeStore())
    server = await startTestServer({ skills, store: recorded.store, logger: { warn: () => {}, error: () => {} } })
    return recorded
  }

  it('a blocking send whose handler ends within its first turn is one write: the insert of the final task', async () => {
    const { store, writes, calls } = await start([echo])
    const task = await send('echo')
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.artifacts).toEqual([{ artifactId: expect.any(String), name: 'echo', parts: [{ text: 'hello' }] }])
    expect(writes()).toEqual(['create TASK_STATE_COMPLETED'])
    // No read of the task before its run: nothing but this run could have written it.
    expect(calls.filter((call) => call === 'get')).toEqual([])
    expect(await store.get(task.id)).toMatchObject({ version: 1, task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: task.artifacts } })
    expect(await server!.result('GetTask', { id: task.id })).toEqual(task)
  })

  it('a handler that waits on I/O is inserted once its first turn ends, then writes as usual', async () => {
    const { store, writes } = await start([ioFirst])
    const task = await send('io-first')
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.artifacts).toHaveLength(1)
    expect(writes()).toEqual(['create TASK_STATE_WORKING', 'update TASK_STATE_WORKING', 'update TASK_STATE_COMPLETED'])
    expect((await store.get(task.id))!.version).toBe(3)
  })

  it('returnImmediately answers once the task is inserted, in the state the insert stored', async () => {
    const { writes } = await start([echo, ioFirst])
    const fast = await send('echo', { configuration: { returnImmediately: true } })
    expect(fast.status.state).toBe('TASK_STATE_COMPLETED')
    expect(writes()).toEqual(['create TASK_STATE_COMPLETED'])
    const slow = await send('io-first', { configuration: { returnImmediately: true } })
    // Stored before the answer: a GetTask right after reads it.
    expect(slow.status.state).toBe('TASK_STATE_WORKING')
    expect((await server!.result('GetTask', { id: slow.id })).status.state).not.toBe('TASK_STATE_SUBMITTED')
    await expect.poll(async () => (await server!.result('GetTask', { id: slow.id })).status.state).toBe('TASK_STATE_COMPLETED')
  })

  it("a stream's task is inserted before its run: its snapshot is the inserted task, then each event under its own version", async () => {
    const { writes } = await start([echo])
    const reply = await server!.stream('SendStreamingMessage', { message: userMessage('hello', { skill: 'echo' }) })
    const events = await reply.ended
    expect(events.map((event) => Object.keys(event.data.result)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate'])
    // The snapshot is the task as inserted (SUBMITTED, version 1), not a held task's final state.
    expect(events[0]!.data.result.task.status.state).toBe('TASK_STATE_SUBMITTED')
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3'])
    // The run's two writes of its first turn are one update.
    expect(writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_COMPLETED'])
  })

  it('a paused, a failing and a replying handler are each one write, and the paused task resumes', async () => {
    const ask = defineSkill({
      id: 'ask',
      description: 'asks, then completes',
      handler: async (ctx) => (ctx.history.length === 1 ? ctx.requireInput('name?') : ctx.complete(`hi ${ctx.text}`)),
    })
    const boom = defineSkill({
      id: 'boom',
      description: 'throws',
      handler: () => {
        throw new Error('boom')
      },
    })
    const replier = defineSkill({ id: 'reply', description: 'replies', handler: (ctx) => ctx.reply(`re: ${ctx.text}`) })
    const { writes } = await start([ask, boom, replier])
    const paused = await send('ask')
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    expect((await send('boom')).status.state).toBe('TASK_STATE_FAILED')
    const reply = await server!.result('SendMessage', { message: userMessage('x', { skill: 'reply' }) })
    expect(reply.message.parts).toEqual([{ text: 're: x' }])
    expect(writes()).toEqual(['create TASK_STATE_INPUT_REQUIRED', 'create TASK_STATE_FAILED', 'create TASK_STATE_COMPLETED'])
    const resumed = (await server!.result('SendMessage', { message: userMessage('ann', { taskId: paused.id }) })).task
    expect(resumed.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'hi ann' }] } })
  })

  it("a resumed task's writes within its run's first turn are one update after the resuming one", async () => {
    const { store, writes, calls } = await start([askThenEcho])
    const paused = await send('ask-echo')
    const resumed = (await server!.result('SendMessage', { message: userMessage('ann', { taskId: paused.id }) })).task
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED')
    expect(resumed.artifacts).toEqual([{ artifactId: expect.any(String), name: 'echo', parts: [{ text: 'ann' }] }])
    expect(writes()).toEqual(['create TASK_STATE_INPUT_REQUIRED', 'update TASK_STATE_WORKING', 'update TASK_STATE_COMPLETED'])
    // The run reads its task once, for a cancel stored since the resume.
    expect(calls.filter((call) => call === 'get')).toHaveLength(2)
    // A version each: the insert, the resume, the artifact, the completion.
    expect(await store.get(resumed.id)).toMatchObject({ version: 4, task: { status: resumed.status, artifacts: resumed.artifacts } })
    const again = await send('ask-echo')
    const stream = await server!.stream('SendStreamingMessage', { message: userMessage('bob', { taskId: again.id }) })
    const events = (await stream.ended).map((event) => event.data.result)
    expect(events.map((event) => Object.keys(event)[0])).toEqual(['task', 'artifactUpdate', 'statusUpdate'])
    expect(events[1].artifactUpdate.artifact.parts).toEqual([{ text: 'bob' }])
    expect(events[2].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
    expect(writes().slice(3)).toEqual(['create TASK_STATE_INPUT_REQUIRED', 'update TASK_STATE_WORKING', 'update TASK_STATE_COMPLETED'])
  })

  it('a repeat of the message answers the one task, and concurrent repeats run the handler once', async () => {
    let runs = 0
    const counted = defineSkill({ id: 'counted', description: 'counts its runs', handler: (ctx) => ctx.complete(`run ${++runs}`) })
    const { writes } = await start([counted])
    const message = userMessage('once', { skill: 'counted' })
    const replies = await Promise.all(Array.from({ length: 4 }, () => server!.result('SendMessage', { message })))
    expect(new Set(replies.map((reply) => reply.task.id)).size).toBe(1)
    expect((await server!.result('SendMessage', { message })).task.id).toBe(replies[0].task.id)
    expect(runs).toBe(1)
    expect(writes()).toEqual(['create TASK_STATE_COMPLETED'])
  })

  it('a shutdown during the first turn stores the task CANCELED and answers it', async () => {
    const release = gate()
    const waits = defineSkill({
      id: 'waits',
      description: 'shuts the server down, then waits for its signal',
      handler: async (ctx) => {
        void server!.exchange.shutdown().then(() => release.open())
        if (!ctx.signal.aborted) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      },
    })
    const { store, writes } = await start([waits])
    const task = await send('waits')
    expect(task.status.state).toBe('TASK_STATE_CANCELED')
    await release.opened
    expect(writes()).toEqual(['create TASK_STATE_CANCELED'])
    expect((await store.get(task.id))!.task.status.state).toBe('TASK_STATE_CANCELED')
  })
})

describe('a cancel of a task not stored yet', () => {
  // On MemoryStore, whose read answers within the turn: the cancel is read before the insert.
  it('finds no task, and the run goes on', async () => {
    let cancel: unknown
    const selfCancel = defineSkill({
      id: 'self-cancel',
      description: 'asks to cancel its own task within its first turn',
      handler: async (ctx) => {
        cancel = await server!.exchange.call(ctx.principal, 'CancelTask', { id: ctx.taskId }).catch((error: unknown) => error)
        await ctx.complete('done')
      },
    })
    server = await startTestServer({ skills: [selfCancel] })
    const task = await send('self-cancel')
    // Nobody was told of the task before its insert: a cancel then is one for an unknown task.
    expect(cancel).toMatchObject({ code: -32001 })
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('on a store replicas share', () => {
  it('the task is stored before its handler starts, and its run writes go after', async () => {
    let seen: TaskRecord | undefined
    const { store, writes } = recordCalls(new MemoryStore(), { shared: true })
    const looks = defineSkill({
      id: 'looks',
      description: 'reads its own task from the store',
      handler: async (ctx) => {
        seen = await store.get(ctx.taskId)
        await ctx.complete()
      },
    })
    server = await startTestServer({ skills: [looks], store })
    const task = (await server.result('SendMessage', { message: userMessage('x', { skill: 'looks' }) })).task
    expect(seen?.task.status.state).toBe('TASK_STATE_SUBMITTED')
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_COMPLETED'])
  })

  it("a cancel stored by another writer within the run's first turn wins over the merged writes: they are refused, and the sender gets the cancel", async () => {
    const { store, writes } = recordCalls(new MemoryStore(), { shared: true })
    // Another replica's cancel, as it lands in the store (MemoryStore answers within the turn).
    const canceledElsewhere = defineSkill({
      id: 'canceled-elsewhere',
      description: 'its task is canceled by another writer, then it writes an artifact and completes',
      handler: async (ctx) => {
        const stored = (await store.get(ctx.taskId))!
        const status = { state: 'TASK_STATE_CANCELED' as const }
        await store.update(ctx.taskId, stored.version, { task: { ...stored.task, status }, event: { statusUpdate: { taskId: ctx.taskId, contextId: stored.contextId, status } } })
        await ctx.artifact({ name: 'late', parts: 'x' })
        await ctx.complete('done')
      },
    })
    server = await startTestServer({ skills: [canceledElsewhere], store })
    const task = (await server.result('SendMessage', { message: userMessage('x', { skill: 'canceled-elsewhere' }) })).task
    expect(task.status.state).toBe('TASK_STATE_CANCELED')
    expect(task.artifacts).toBeUndefined()
    expect(writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_CANCELED', 'update TASK_STATE_COMPLETED'])
    expect(await store.get(task.id)).toMatchObject({ version: 2, task: { status: { state: 'TASK_STATE_CANCELED' } } })
    expect(server.exchange.activeRuns).toBe(0)
  })
})

describe('an insert the store refuses', () => {
  it('answers the sender -32603, leaves no task, frees the run slot and logs nothing for the run', async () => {
    let fail = true
    class FullDisk extends MemoryStore {
      override async create(record: TaskRecord): Promise<void> {
        if (fail) throw new Error('disk full')
        return super.create(record)
      }
    }
    const lines: string[] = []
    const store = new FullDisk()
    server = await startTestServer({ skills: [echo], store, maxConcurrentRunsPerOwner: 1, logger: { warn: (line) => lines.push(line), error: (line) => lines.push(line) } })
    const reply = await server.rpc('SendMessage', { message: userMessage('x', { skill: 'echo' }) })
    expect(reply.body.error).toMatchObject({ code: -32603 })
    expect((await store.list({ owner: 'alice', pageSize: 10 })).records).toEqual([])
    expect(server.exchange.activeRuns).toBe(0)
    expect(lines.filter((line) => line.includes('finalize failed'))).toEqual([])
    fail = false
    // The one slot is free again.
    expect((await server.result('SendMessage', { message: userMessage('y', { skill: 'echo' }) })).task.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('on PostgresStore, shared by replicas', () => {
  let database: TestDatabase
  const replicas: { server: TestServer; store: PostgresStore }[] = []
  beforeAll(async () => {
    database = await openDatabase('postgres')
  })
  afterEach(async () => {
    for (const { server, store } of replicas.splice(0)) {
      await server.close()
      await store.close()
    }
    // Each test finds its task as the only one.
    await database.clear()
  })
  afterAll(async () => {
    await database?.close()
  })

  /** A replica: its own server and its own PostgresStore on the one database. */
  const replica = async (skills: Skill[] = [echo, ioFirst], options: { insertBeforeRun?: boolean } = {}) => {
    const store = new PostgresStore(database.url, { max: 4, ...options })
    const recorded = recordCalls(store)
    const server = await startTestServer({ skills, store: recorded.store })
    replicas.push({ server, store })
    return { ...recorded, server }
  }
  const rows = async <R>(text: string): Promise<R[]> => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return (await client.query(text)).rows as R[]
    } finally {
      await client.end()
    }
  }
  const sendTo = async (target: TestServer, skill: string) => (await target.result('SendMessage', { message: userMessage('hello', { skill }) })).task
  const kinds = (events: { data: any }[]) => events.map((event) => Object.keys(event.data.result)[0])

  it('a blocking send whose handler ends within its first turn is one insert of the final task, claimed before the handler ran', async () => {
    const a = await replica()
    const b = await replica()
    const task = await sendTo(a.server, 'echo')
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.artifacts).toEqual([{ artifactId: expect.any(String), name: 'echo', parts: [{ text: 'hello' }] }])
    expect(a.calls.filter((call) => call === 'claim' || call.startsWith('create') || call.startsWith('update'))).toEqual(['claim', 'create TASK_STATE_COMPLETED'])
    expect(await b.store.get(task.id)).toMatchObject({ version: 1, task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: task.artifacts } })
    // Nobody could follow the task before it was stored: no event is kept for it.
    expect(await b.store.eventsSince(task.id, 0)).toEqual([])
    expect(await b.server.result('GetTask', { id: task.id })).toEqual(task)
    expect((await rows<{ taskId: string }>(`SELECT "taskId" FROM "A2ATaskMessage"`)).map((row) => row.taskId)).toEqual([task.id])
  })

  it("with insertBeforeRun, a new task is stored before its handler starts, and a quick run's writes are one update", async () => {
    let seen: TaskRecord | undefined
    const looks = defineSkill({
      id: 'looks',
      description: "reads its own task from the other replica's store, then completes",
      handler: async (ctx) => {
        seen = await b.store.get(ctx.taskId)
        await ctx.complete('done')
      },
    })
    const a = await replica([echo, looks], { insertBeforeRun: true })
    const b = await replica()
    expect((await sendTo(a.server, 'looks')).status.state).toBe('TASK_STATE_COMPLETED')
    expect(seen?.task.status.state).toBe('TASK_STATE_SUBMITTED')
    a.calls.length = 0
    const task = await sendTo(a.server, 'echo')
    expect(a.calls.filter((call) => call === 'claim' || call.startsWith('create') || call.startsWith('update'))).toEqual([
      'create TASK_STATE_SUBMITTED',
      'update TASK_STATE_COMPLETED',
    ])
    expect(await b.store.get(task.id)).toMatchObject({ version: 3, task: { status: { state: 'TASK_STATE_COMPLETED' } } })
  })

  it("a handler that waits on I/O is inserted at its first turn's end, then each write as it comes, each event kept", async () => {
    const a = await replica()
    const task = await sendTo(a.server, 'io-first')
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(a.writes()).toEqual(['create TASK_STATE_WORKING', 'update TASK_STATE_WORKING', 'update TASK_STATE_COMPLETED'])
    expect((await a.store.eventsSince(task.id, 0)).map((event) => [event.version, Object.keys(event.response)[0]])).toEqual([
      [2, 'artifactUpdate'],
      [3, 'statusUpdate'],
    ])
  })

  it("a resumed task's first-turn writes are one update after the resuming one, each event kept under its own version", async () => {
    const a = await replica([askThenEcho])
    const b = await replica([askThenEcho])
    const paused = await sendTo(a.server, 'ask-echo')
    const resumed = (await b.server.result('SendMessage', { message: userMessage('ann', { taskId: paused.id }) })).task
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED')
    expect(a.writes()).toEqual(['create TASK_STATE_INPUT_REQUIRED'])
    expect(b.writes()).toEqual(['update TASK_STATE_WORKING', 'update TASK_STATE_COMPLETED'])
    // Version 1 is the first run's insert; 2 the resume.
    expect((await a.store.eventsSince(resumed.id, 2)).map((event) => [event.version, Object.keys(event.response)[0]])).toEqual([
      [3, 'artifactUpdate'],
      [4, 'statusUpdate'],
    ])
    expect(await a.server.result('GetTask', { id: resumed.id })).toEqual(resumed)
  })

  it('a claim another replica holds makes the same message wait there, then answers the one task, its handler run once', async () => {
    let runs = 0
    const counted = defineSkill({ id: 'counted', description: 'counts its runs', handler: (ctx) => ctx.complete(`run ${++runs}`) })
    const a = await replica([counted])
    const b = await replica([counted])
    for (let round = 0; round < 5; round++) {
      const message = userMessage(`once ${round}`, { skill: 'counted' })
      const [onA, onB] = await Promise.all([a.server.result('SendMessage', { message }), b.server.result('SendMessage', { message })])
      expect(onA.task).toEqual(onB.task)
      expect(onA.task.status.state).toBe('TASK_STATE_COMPLETED')
    }
    expect(runs).toBe(5)
    expect(await rows(`SELECT 1 FROM "A2ATask"`)).toHaveLength(5)
  })

  it('a stream on the replica running the task gets every event of the merged update, each with its own version', async () => {
    const a = await replica()
    const reply = await a.server.stream('SendStreamingMessage', { message: userMessage('hello', { skill: 'echo' }) })
    const events = await reply.ended
    expect(kinds(events)).toEqual(['task', 'artifactUpdate', 'statusUpdate'])
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3'])
    expect(a.writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_COMPLETED'])
  })

  /**
   * Streams echo from `a` while A2ATaskEvent is locked: the task is inserted before its run (a
   * stream hears of it first) and the merged update, which keeps its events there, waits (reads
   * pass). `meanwhile` gets the task's id, found through `b`; then the lock is let go. `status`:
   * the stream's last.
   */
  async function sendBehindLock(a: TestServer, b: TestServer, meanwhile: (id: string, locker: pg.Client) => Promise<void>) {
    const locker = new pg.Client({ connectionString: database.url })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE "A2ATaskEvent" IN EXCLUSIVE MODE')
      const sent = a.stream('SendStreamingMessage', { message: userMessage('hello', { skill: 'echo' }) }).then((reply) => reply.ended)
      let id: string | undefined
      await expect.poll(async () => (id = (await b.result('ListTasks', {})).tasks[0]?.id)).toBeDefined()
      await meanwhile(id!, locker)
      await locker.query('COMMIT')
      const last = (await sent).at(-1)!.data.result
      return { id: id!, status: (last.statusUpdate ?? last.task).status }
    } finally {
      await locker.end()
    }
  }

  it('SubscribeToTask on another replica, made before the merged update lands, gets each of its events in order', { timeout: 30_000 }, async () => {
    const a = await replica()
    const b = await replica()
    let stream: Awaited<ReturnType<TestServer['stream']>> | undefined
    const { status } = await sendBehindLock(a.server, b.server, async (id) => {
      stream = await b.server.stream('SubscribeToTask', { id })
      expect((await stream.next())?.data.result.task.status.state).toBe('TASK_STATE_SUBMITTED')
    })
    const events = await stream!.ended
    expect(kinds(events)).toEqual(['task', 'artifactUpdate', 'statusUpdate'])
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3'])
    expect(events[2]!.data.result.statusUpdate.status).toEqual(status)
    expect(a.writes()).toEqual(['create TASK_STATE_SUBMITTED', 'update TASK_STATE_COMPLETED'])
  })

  it('a cancel served by another replica while the merged update waits: exactly one lands, and the sender and the store agree', { timeout: 30_000 }, async () => {
    const a = await replica()
    const b = await replica()
    let canceled: Promise<Awaited<ReturnType<TestServer['rpc']>>> | undefined
    const { id, status } = await sendBehindLock(a.server, b.server, async (id, locker) => {
      // B's cancel keeps its event too: it waits with A's update.
      canceled = b.server.rpc('CancelTask', { id })
      await expect
        .poll(async () => (await locker.query(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = '"A2ATaskEvent"'::regclass AND NOT granted`)).rows[0].n)
        .toBeGreaterThanOrEqual(2)
    })
    const cancel = await canceled!
    const stored = await b.store.get(id)
    // Exactly one of the two landed on version 1; the other was refused.
    if (stored!.task.status.state === 'TASK_STATE_CANCELED') {
      expect(stored!.version).toBe(2)
      expect(status.state).toBe('TASK_STATE_CANCELED')
      expect(cancel.body.result.status.state).toBe('TASK_STATE_CANCELED')
    } else {
      expect(stored).toMatchObject({ version: 3, task: { status: { state: 'TASK_STATE_COMPLETED' } } })
      expect(status.state).toBe('TASK_STATE_COMPLETED')
      expect(cancel.body.error).toMatchObject({ code: -32002 })
    }
    expect(a.server.exchange.activeRuns).toBe(0)
  })
})
