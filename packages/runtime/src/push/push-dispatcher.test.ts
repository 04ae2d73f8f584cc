import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Logger } from '../log/logger.js'
import { makeRecord } from '../store/conformance-fixtures.js'
import { MemoryStore } from '../store/memory-store.js'
import { assertWireV03 } from '../testing/wire-schema-v03.js'
import type { PushConfigRecord } from '../store/store.js'
import type { TaskState } from '../wire/types.js'
import type { PushEvent } from './push-delivery.js'
import { PushDispatcher, type PushDispatcherOptions } from './push-dispatcher.js'
import { deliverWebhook } from './webhook-client.js'

// A real webhook receiver on 127.0.0.1, so deliveries go through deliverWebhook and a socket.
interface Hit {
  path: string
  headers: IncomingHttpHeaders
  body: any
}
interface Receiver {
  base: string
  hits: Hit[]
  /** Requests whose path matches are held open until release(). */
  hold: (path: string) => boolean
  held: ServerResponse[]
  status: (path: string) => number
  /** Milliseconds to wait before answering. */
  delay: () => number
  release(): void
  versions(path: string): number[]
}

// Generous: a loaded CI machine may take a while to open 16 sockets.
const WAIT = { timeout: 10_000, interval: 10 }

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    base: '',
    hits: [],
    hold: () => false,
    held: [],
    status: () => 200,
    delay: () => 0,
    release() {
      this.hold = () => false
      for (const res of this.held.splice(0)) res.writeHead(200).end()
    },
    versions(path) {
      return this.hits.filter((h) => h.path === path).map((h) => h.body.statusUpdate.metadata.v)
    },
  }
  const server = createServer((req, res) => {
    const path = req.url ?? ''
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      receiver.hits.push({ path, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      if (receiver.hold(path)) {
        receiver.held.push(res)
        return
      }
      const answer = () => res.writeHead(receiver.status(path)).end('ok')
      const ms = receiver.delay()
      if (ms > 0) setTimeout(answer, ms)
      else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return receiver
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return { lines, warn: (line) => lines.push(`warn ${line}`), error: (line) => lines.push(`error ${line}`) }
}

function event(taskId: string, version: number, state: TaskState = 'TASK_STATE_WORKING'): PushEvent {
  return { taskId, version, response: { statusUpdate: { taskId, contextId: 'ctx', status: { state }, metadata: { v: version } } } }
}

let seq = 0
async function addConfigs(store: MemoryStore, receiver: Receiver, taskId: string, owner: string, count: number, extra: Partial<PushConfigRecord> = {}) {
  const paths: string[] = []
  for (let i = 1; i <= count; i++) {
    const path = `/${owner}/${taskId}/c${i}`
    await store.putPushConfig({ id: `c${i}`, taskId, owner, url: `${receiver.base}${path}`, createdAt: ++seq, ...extra })
    paths.push(path)
  }
  return paths
}

function makeDispatcher(options: Partial<PushDispatcherOptions> = {}) {
  const store = new MemoryStore()
  const logger = recordingLogger()
  const dispatcher = new PushDispatcher({ store, logger, allowPrivate: true, ...options })
  cleanups.push(() => dispatcher.idle())
  return { store, logger, dispatcher }
}

describe('PushDispatcher', () => {
  it('POSTs the StreamResponse to every config of the task with its token and authentication', async () => {
    const receiver = await startReceiver()
    const { store, logger, dispatcher } = makeDispatcher()
    await addConfigs(store, receiver, 't1', 'alice', 1, { token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'sekrit' } })
    await store.putPushConfig({ id: 'c2', taskId: 't1', owner: 'alice', url: `${receiver.base}/plain`, createdAt: ++seq })
    await addConfigs(store, receiver, 'other', 'alice', 1)
    const sent = event('t1', 3, 'TASK_STATE_COMPLETED')
    await dispatcher.notify(sent)
    await dispatcher.idle()
    expect(receiver.hits.map((h) => h.path).sort()).toEqual(['/alice/t1/c1', '/plain'])
    const withAuth = receiver.hits.find((h) => h.path === '/alice/t1/c1')!
    expect(withAuth.body).toEqual(sent.response)
    expect(withAuth.headers['content-type']).toBe('application/a2a+json')
    expect(withAuth.headers['authorization']).toBe('Bearer sekrit')
    expect(withAuth.headers['x-a2a-notification-token']).toBe('tok-1')
    const plain = receiver.hits.find((h) => h.path === '/plain')!
    expect(plain.headers['authorization']).toBeUndefined()
    expect(plain.headers['x-a2a-notification-token']).toBeUndefined()
    expect(logger.lines).toEqual([])
  })

  it("sends a 0.3 config the task in the 0.3 shape: as stored, or the event's own; nothing when it is gone", async () => {
    const receiver = await startReceiver()
    const { store, logger, dispatcher } = makeDispatcher()
    await store.create(makeRecord({ id: 't1', state: 'TASK_STATE_WORKING' }))
    const [v10] = await addConfigs(store, receiver, 't1', 'alice', 1)
    await store.putPushConfig({ id: 'c03', taskId: 't1', owner: 'alice', url: `${receiver.base}/v03`, token: 'tok', generation: '0.3', createdAt: ++seq })
    await dispatcher.notify(event('t1', 2))
    await dispatcher.idle()
    // Gone between the config lookup and the read: the 0.3 config has no task to be sent, unless the event is one.
    const gone = makeDispatcher({ store: { get: async () => undefined, listPushConfigs: (taskId) => store.listPushConfigs(taskId) } })
    await gone.dispatcher.notify(event('t1', 3))
    const completed = { ...makeRecord({ id: 't1' }).task, artifacts: [{ artifactId: 'a', parts: [{ text: 'done' }] }] }
    await gone.dispatcher.notify({ taskId: 't1', version: 4, response: { task: completed } })
    await gone.dispatcher.idle()
    const hitsOf = (path: string) => receiver.hits.filter((hit) => hit.path === path)
    expect(hitsOf(v10!).map((hit) => Object.keys(hit.body)[0])).toEqual(['statusUpdate', 'statusUpdate', 'task'])
    const v03 = hitsOf('/v03')
    expect(v03.map((hit) => assertWireV03('Task', hit.body).status.state)).toEqual(['working', 'completed'])
    expect(v03[1]!.body).toMatchObject({ kind: 'task', id: 't1', artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: 'done' }] }] })
    expect(v03[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-a2a-notification-token': 'tok' })
    expect([...logger.lines, ...gone.logger.lines]).toEqual([])
  })

  it('delivers many concurrent events to each config one at a time, in event order', async () => {
    const receiver = await startReceiver()
    receiver.delay = () => Math.floor(Math.random() * 4)
    // Counted at the deliver seam: what the dispatcher has started and not yet seen settle.
    const open = new Map<string, number>()
    const maxOpen = new Map<string, number>()
    const deliver: typeof deliverWebhook = async (target, body, options) => {
      const now = (open.get(target.url) ?? 0) + 1
      open.set(target.url, now)
      maxOpen.set(target.url, Math.max(maxOpen.get(target.url) ?? 0, now))
      try {
        return await deliverWebhook(target, body, options)
      } finally {
        open.set(target.url, open.get(target.url)! - 1)
      }
    }
    const { store, logger, dispatcher } = makeDispatcher({ eventWindow: 1000, deliver })
    const paths = await addConfigs(store, receiver, 't1', 'alice', 3)
    const versions = Array.from({ length: 40 }, (_, i) => i + 1)
    await Promise.all(versions.map((v) => dispatcher.notify(event('t1', v))))
    await dispatcher.idle()
    for (const path of paths) {
      expect(receiver.versions(path), path).toEqual(versions)
      expect(maxOpen.get(`${receiver.base}${path}`), path).toBe(1)
    }
    expect(logger.lines).toEqual([])
  })

  it('keeps event order when the store answers lookups out of order', async () => {
    const receiver = await startReceiver()
    const inner = new MemoryStore()
    const paths = await addConfigs(inner, receiver, 't1', 'alice', 1)
    // Each lookup takes less time than the one before, so later ones would overtake.
    let wait = 40
    const store = { get: (id: string) => inner.get(id), listPushConfigs: async (taskId: string) => (await sleep((wait = Math.max(wait - 5, 0))), inner.listPushConfigs(taskId)) }
    const { dispatcher } = makeDispatcher({ store })
    await Promise.all([1, 2, 3, 4, 5].map((v) => dispatcher.notify(event('t1', v))))
    await dispatcher.idle()
    expect(receiver.versions(paths[0]!)).toEqual([1, 2, 3, 4, 5])
  })

  it('drops an event older than one already sent or queued for the config', async () => {
    const receiver = await startReceiver()
    receiver.hold = () => true
    const { store, logger, dispatcher } = makeDispatcher()
    const [path] = await addConfigs(store, receiver, 't1', 'alice', 1)
    await dispatcher.notify(event('t1', 1))
    await vi.waitFor(() => expect(receiver.hits).toHaveLength(1), WAIT)
    await dispatcher.notify(event('t1', 3, 'TASK_STATE_COMPLETED'))
    await dispatcher.notify(event('t1', 2)) // older than the queued v3: dropped
    receiver.release()
    await dispatcher.idle()
    await dispatcher.notify(event('t1', 2)) // older than the sent v3: still dropped
    await dispatcher.idle()
    expect(receiver.versions(path!)).toEqual([1, 3])
    // A stale event is expected under concurrent writers, not worth a log line.
    expect(logger.lines).toEqual([])
  })

  it('coalesces a backlog past the window: the newest waits, the terminal stays and goes last', async () => {
    const receiver = await startReceiver()
    receiver.hold = () => true
    const { store, logger, dispatcher } = makeDispatcher({ eventWindow: 4 })
    const [path] = await addConfigs(store, receiver, 't1', 'alice', 1)
    await dispatcher.notify(event('t1', 1))
    await vi.waitFor(() => expect(receiver.hits).toHaveLength(1), WAIT)
    for (const v of [2, 3, 4, 5]) await dispatcher.notify(event('t1', v)) // fills the window
    await dispatcher.notify(event('t1', 6)) // replaces 2..5
    await dispatcher.notify(event('t1', 7, 'TASK_STATE_COMPLETED'))
    await dispatcher.notify(event('t1', 8)) // nothing goes after the final state
    receiver.release()
    await dispatcher.idle()
    expect(receiver.versions(path!)).toEqual([1, 6, 7])
    expect(logger.lines).toHaveLength(1)
    expect(logger.lines[0]).toMatch(/^warn a2a: push notifications for task t1 config c1 coalesced: the receiver at 127\.0\.0\.1:\d+ is more than 4 events behind/)
  })

  it('never refuses the state a run ends on for a full queue: the bounds count waiting configs', async () => {
    const receiver = await startReceiver()
    receiver.hold = () => true
    const { store, logger, dispatcher } = makeDispatcher({ maxInFlight: 1, maxWaitingConfigs: 2 })
    const paths = []
    for (const t of ['t0', 't1', 't2', 't3', 't4', 't5']) paths.push((await addConfigs(store, receiver, t, 'alice', 1))[0]!)
    await dispatcher.notify(event('t0', 1)) // in flight
    await vi.waitFor(() => expect(receiver.hits).toHaveLength(1), WAIT)
    await dispatcher.notify(event('t1', 1)) // waits
    await dispatcher.notify(event('t1', 2)) // the same config: no new room needed
    await dispatcher.notify(event('t2', 1)) // waits: both rooms taken
    await dispatcher.notify(event('t3', 1)) // refused
    expect(logger.lines).toHaveLength(1)
    expect(logger.lines[0]).toMatch(
      /^warn a2a: push notification for task t3 version 1 dropped for 1 config\(s\) \(c1\): too many configs waiting \(1 deliveries in flight, 2 configs waiting\)/,
    )
    await dispatcher.notify(event('t3', 2, 'TASK_STATE_COMPLETED'))
    await dispatcher.notify(event('t4', 1, 'TASK_STATE_INPUT_REQUIRED'))
    await dispatcher.notify(event('t5', 1, 'TASK_STATE_FAILED'))
    receiver.release()
    await dispatcher.idle()
    expect(paths.map((p) => receiver.versions(p))).toEqual([[1], [1, 2], [1], [2], [1], [1]])
    expect(logger.lines).toHaveLength(1)
  })

  it("one owner's hung receiver leaves that owner's healthy receiver its slots and its room to wait", async () => {
    const hung = await startReceiver()
    hung.hold = () => true
    const healthy = await startReceiver()
    const { store, logger, dispatcher } = makeDispatcher({ maxInFlightPerOwner: 4, maxWaitingConfigsPerOwner: 8, maxWaitingConfigsPerReceiver: 4 })
    const tasks = Array.from({ length: 20 }, (_, i) => `t${i}`)
    const healthyPaths: string[] = []
    for (const t of tasks) {
      await addConfigs(store, hung, t, 'alice', 1)
      await store.putPushConfig({ id: 'ok', taskId: t, owner: 'alice', url: `${healthy.base}/${t}`, createdAt: ++seq })
      healthyPaths.push(`/${t}`)
    }
    // One task after another, as a caller sends them: each reaches the healthy receiver in full.
    for (const [i, t] of tasks.entries()) {
      await dispatcher.notify(event(t, 1))
      await dispatcher.notify(event(t, 2, 'TASK_STATE_COMPLETED'))
      await vi.waitFor(() => expect(healthy.versions(healthyPaths[i]!)).toEqual([1, 2]), WAIT)
    }
    // The hung receiver holds its 2 slots (their COMPLETED waits behind them), 2 more of its
    // configs waited with their WORKING event, the other 16 were refused that one but not their
    // COMPLETED.
    expect(hung.hits).toHaveLength(2)
    expect(logger.lines.every((line) => line.includes('dropped for 1 config(s) (c1)'))).toBe(true)
    expect(logger.lines.length).toBe(16)
    hung.release()
    await dispatcher.idle()
    const hungVersions = tasks.map((t) => hung.versions(`/alice/${t}/c1`))
    expect(hungVersions.every((versions) => versions.at(-1) === 2)).toBe(true)
  })

  it("keeps other owners apart from one owner's hung receiver, and holds the process to maxInFlight", async () => {
    const receiver = await startReceiver()
    receiver.hold = (path) => path.startsWith('/alice/')
    const { store, dispatcher } = makeDispatcher({ maxInFlight: 6 })
    const owners = ['alice', 'bob', 'carol', 'dave']
    for (const owner of owners) await addConfigs(store, receiver, `t-${owner}`, owner, 4)
    await dispatcher.notify(event('t-alice', 1))
    await vi.waitFor(() => expect(receiver.hits).toHaveLength(2), WAIT) // alice's receiver: 2 in flight
    await dispatcher.notify(event('t-bob', 1))
    await vi.waitFor(() => expect(receiver.hits.filter((h) => h.path.startsWith('/bob/'))).toHaveLength(4), WAIT)
    receiver.hold = () => true
    for (const owner of ['carol', 'dave']) await dispatcher.notify(event(`t-${owner}`, 1))
    await vi.waitFor(() => expect(receiver.hits).toHaveLength(10), WAIT)
    await sleep(50)
    expect(receiver.hits).toHaveLength(10) // 6 in flight: alice 2, carol 2, dave 2
    receiver.release()
    await dispatcher.idle()
    expect(receiver.hits).toHaveLength(16)
  })

  it('makes one attempt and logs each failure once, without the URL path or credentials', async () => {
    const receiver = await startReceiver()
    receiver.status = (path) => (path.includes('fail') ? 500 : 200)
    const closed = await startReceiver()
    await cleanups.pop()!() // its port now refuses connections
    const { store, logger, dispatcher } = makeDispatcher()
    await store.putPushConfig({ id: 'c500', taskId: 't1', owner: 'alice', url: `${receiver.base}/fail?secret=q1`, token: 'tok-x', createdAt: 1 })
    await store.putPushConfig({ id: 'cdown', taskId: 't1', owner: 'alice', url: `${closed.base}/down?secret=q2`, createdAt: 2 })
    await dispatcher.notify(event('t1', 1, 'TASK_STATE_COMPLETED'))
    await dispatcher.idle()
    expect(receiver.hits).toHaveLength(1)
    expect(logger.lines).toHaveLength(2)
    const [http, network] = [logger.lines.find((l) => l.includes('c500'))!, logger.lines.find((l) => l.includes('cdown'))!]
    expect(http).toMatch(/^warn a2a: push delivery to 127\.0\.0\.1:\d+ \(task t1, config c500\) failed: receiver answered HTTP 500$/)
    expect(network).toMatch(/^warn a2a: push delivery to 127\.0\.0\.1:\d+ \(task t1, config cdown\) failed: .*ECONNREFUSED/)
    for (const line of logger.lines) expect(line).not.toMatch(/secret|tok-x|\/fail|\/down/)
  })

  it('times a hung receiver out and frees its slot', async () => {
    const receiver = await startReceiver()
    receiver.hold = (path) => path === '/slow'
    const { store, logger, dispatcher } = makeDispatcher({ timeoutMs: 150, maxInFlight: 1 })
    await store.putPushConfig({ id: 'slow', taskId: 't1', owner: 'alice', url: `${receiver.base}/slow`, createdAt: 1 })
    await store.putPushConfig({ id: 'fast', taskId: 't2', owner: 'bob', url: `${receiver.base}/fast`, createdAt: 1 })
    await dispatcher.notify(event('t1', 1))
    await dispatcher.notify(event('t2', 1)) // waits for the only slot
    await dispatcher.idle()
    expect(receiver.hits.map((h) => h.path)).toEqual(['/slow', '/fast'])
    expect(logger.lines).toHaveLength(1)
    expect(logger.lines[0]).toMatch(/config slow\) failed: .*timed out after 150 ms/)
  })

  it('a throwing, rejecting or hanging deliver fails only its own delivery', async () => {
    const receiver = await startReceiver()
    const deliver: typeof deliverWebhook = (target, body, options) => {
      if (target.url.endsWith('/throw')) throw new Error('kaput\nforged log line')
      if (target.url.endsWith('/reject')) return Promise.reject(new Error('nope'))
      if (target.url.endsWith('/hang')) return new Promise(() => {})
      return deliverWebhook(target, body, options)
    }
    const { store, logger, dispatcher } = makeDispatcher({ deliver, timeoutMs: 50 })
    for (const [i, name] of ['throw', 'reject', 'hang', 'ok'].entries()) {
      await store.putPushConfig({ id: name, taskId: 't1', owner: 'alice', url: `${receiver.base}/${name}`, createdAt: i })
    }
    await expect(dispatcher.notify(event('t1', 1))).resolves.toBeUndefined()
    await dispatcher.idle()
    expect(receiver.hits.map((h) => h.path)).toEqual(['/ok'])
    expect(logger.lines).toHaveLength(3)
    expect(logger.lines.find((l) => l.includes('config throw'))).toContain('Error: kaput forged log line')
    expect(logger.lines.find((l) => l.includes('config reject'))).toContain('Error: nope')
    expect(logger.lines.find((l) => l.includes('config hang'))).toContain('gave no answer within 1050 ms')
    for (const line of logger.lines) expect(line).not.toContain('\n')
  })

  it('logs a failing config lookup, and survives a throwing logger', async () => {
    const logger = recordingLogger()
    const failing = new PushDispatcher({
      store: { get: () => Promise.resolve(undefined), listPushConfigs: () => Promise.reject(new Error('db down')) },
      logger,
      allowPrivate: true,
    })
    await expect(failing.notify(event('t1', 1))).resolves.toBeUndefined()
    expect(logger.lines).toEqual(['error a2a: push config lookup failed for task t1: Error: db down'])

    const store = new MemoryStore()
    await store.putPushConfig({ id: 'c1', taskId: 't1', owner: 'alice', url: 'http://127.0.0.1:1/', createdAt: 1 })
    const explode = () => {
      throw new Error('logger broke')
    }
    const dispatcher = new PushDispatcher({ store, logger: { warn: explode, error: explode }, allowPrivate: true, deliver: () => Promise.reject(new Error('x')) })
    await expect(dispatcher.notify(event('t1', 1))).resolves.toBeUndefined()
    await dispatcher.idle()
  })

  it('idle() resolves at once when nothing is pending', async () => {
    const { dispatcher } = makeDispatcher()
    await expect(dispatcher.idle()).resolves.toBeUndefined()
    await dispatcher.notify(event('no-configs', 1))
    await expect(dispatcher.idle()).resolves.toBeUndefined()
  })
})
