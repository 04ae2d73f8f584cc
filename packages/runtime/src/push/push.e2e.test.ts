import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'
import { echo, work } from './__fixture__/skills.js'

interface Delivery {
  headers: IncomingHttpHeaders
  body: any
}

/** A real webhook receiver on loopback. */
let receiver: Server
let hookUrl: string
let deliveries: Delivery[] = []
/** How long the receiver takes to answer: a healthy receiver that does some work. */
let answerDelayMs = 0
beforeAll(async () => {
  receiver = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: JSON.parse(text) })
      setTimeout(() => response.writeHead(204).end(), answerDelayMs)
    })
  }).listen(0, '127.0.0.1')
  await new Promise((resolve) => receiver.once('listening', resolve))
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
})
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

const ask = defineSkill({
  id: 'ask',
  description: 'asks once',
  handler: async (ctx) => {
    if (ctx.history.length === 1) return ctx.requireInput('?')
    await ctx.complete('thanks')
  },
})

let server: TestServer
afterEach(async () => {
  await server?.close()
  deliveries = []
  answerDelayMs = 0
})
const start = async (options: Partial<TestServerOptions> = {}) => (server = await startTestServer({ skills: [work, ask, echo], allowPrivatePush: true, ...options }))
const taskIdOf = (body: any): string => body.task?.id ?? body.statusUpdate?.taskId ?? body.artifactUpdate?.taskId
const kinds = () => deliveries.map((d) => Object.keys(d.body)[0])

describe('push delivery', () => {
  it("POSTs every StreamResponse of the task in order, with the config's token and credentials", async () => {
    await start()
    const config = { url: hookUrl, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'secret' } }
    const { task } = await server.result('SendMessage', { message: userMessage('go', { skill: 'work' }), configuration: { taskPushNotificationConfig: config } })
    await expect.poll(() => deliveries.length).toBe(4)
    expect(kinds()).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate'])
    expect(deliveries[0]!.body.task.id).toBe(task.id)
    expect(deliveries.at(-1)!.body.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
    for (const { headers } of deliveries) {
      expect(headers['content-type']).toBe('application/a2a+json')
      expect(headers.authorization).toBe('Bearer secret')
      expect(headers['x-a2a-notification-token']).toBe('tok-1')
    }
  })

  it("delivers a resumed task's events to a config created after the task", async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })
    const created = await server.result('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'mine', url: hookUrl })
    expect(created).toEqual({ id: 'mine', taskId: task.id, url: hookUrl })
    await server.result('SendMessage', { message: userMessage('answer', { taskId: task.id }) })
    await expect.poll(() => deliveries.at(-1)?.body.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED')
    expect(deliveries[0]!.body.statusUpdate.status.state).toBe('TASK_STATE_WORKING')
    expect(deliveries[0]!.headers).not.toHaveProperty('x-a2a-notification-token')
  })
})

describe('push lookups', () => {
  it("looks up no configs for the events of a task the store knows has none, and still delivers another task's", async () => {
    const store = new MemoryStore()
    const looked: string[] = []
    const list = store.listPushConfigs.bind(store)
    store.listPushConfigs = (taskId) => {
      looked.push(taskId)
      return list(taskId)
    }
    await start({ store })
    const bare = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'work' }) })
    const events = await bare.ended
    expect(events.at(-1)).toMatchObject({ data: { result: { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } } } })
    const config = { url: hookUrl }
    const { task } = await server.result('SendMessage', { message: userMessage('go', { skill: 'work' }), configuration: { taskPushNotificationConfig: config } })
    await expect.poll(() => deliveries.length).toBe(4)
    expect(new Set(looked)).toEqual(new Set([task.id]))
  })
})

describe('push keeps the last word', () => {
  it('gives every one of 20 sequential tasks its COMPLETED notification, last', async () => {
    await start()
    answerDelayMs = 20
    const ids: string[] = []
    for (let i = 0; i < 20; i++) {
      const { task } = await server.result('SendMessage', {
        message: userMessage(`e${i}`, { skill: 'echo' }),
        configuration: { taskPushNotificationConfig: { url: `${hookUrl}/${i}` } },
      })
      ids.push(task.id)
    }
    // Shutdown resolves once every queued notification has been sent.
    await server.exchange.shutdown()
    const lastState = (id: string) => deliveries.filter((d) => taskIdOf(d.body) === id).at(-1)?.body.statusUpdate?.status.state
    expect(ids.filter((id) => lastState(id) !== 'TASK_STATE_COMPLETED')).toEqual([])
  })

  it("leaves an owner's healthy receiver its deliveries while another of its receivers never answers", async () => {
    // A receiver that reads each request and never answers it.
    const hung = createServer(() => {}).listen(0, '127.0.0.1')
    await new Promise((resolve) => hung.once('listening', resolve))
    const hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/hook`
    try {
      // The hung receiver's deliveries fail when it closes; those log lines are expected.
      await start({ logger: { warn: () => {}, error: () => {} } })
      answerDelayMs = 20
      const send = (i: number, url: string) =>
        server.result('SendMessage', { message: userMessage(`e${i}`, { skill: 'echo' }), configuration: { taskPushNotificationConfig: { url } } })
      for (let i = 0; i < 10; i++) await send(i, hungUrl)
      const ids: string[] = []
      for (let i = 0; i < 20; i++) ids.push((await send(i, `${hookUrl}/${i}`)).task.id)
      const lastState = (id: string) => deliveries.filter((d) => taskIdOf(d.body) === id).at(-1)?.body.statusUpdate?.status.state
      await expect.poll(() => ids.filter((id) => lastState(id) === 'TASK_STATE_COMPLETED').length, { timeout: 5000 }).toBe(20)
    } finally {
      hung.closeAllConnections()
      await new Promise((resolve) => hung.close(resolve))
    }
  })
})

describe('push configs over JSON-RPC', () => {
  it('creates (keeping a client id or assigning one), gets, lists and deletes idempotently', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })
    const kept = await server.result('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c1', url: hookUrl, token: 't' })
    const assigned = await server.result('CreateTaskPushNotificationConfig', { taskId: task.id, url: hookUrl })
    expect(kept.id).toBe('c1')
    expect(assigned.id).toMatch(/[0-9a-f-]{36}/)
    expect(await server.result('GetTaskPushNotificationConfig', { taskId: task.id, id: 'c1' })).toEqual({ id: 'c1', taskId: task.id, url: hookUrl, token: 't' })
    const listed = await server.result('ListTaskPushNotificationConfigs', { taskId: task.id })
    expect(listed.configs.map((c: any) => c.id)).toEqual(['c1', assigned.id])
    expect(await server.result('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' })).toEqual({})
    expect(await server.result('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' })).toEqual({})
    expect((await server.result('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toHaveLength(1)
  })

  it('answers -32001 for every method on a task the caller cannot see', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })
    await server.result('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c1', url: hookUrl })
    for (const [method, params] of [
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: hookUrl }],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }],
    ] as const) {
      expect((await server.rpc(method, params, { token: 'bob' })).body.error.code).toBe(-32001)
    }
    expect((await server.result('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toHaveLength(1)
  })

  it('keeps at most 8 configs per task, deleting the oldest', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })
    for (let i = 1; i <= 10; i++) await server.result('CreateTaskPushNotificationConfig', { taskId: task.id, id: `c${i}`, url: hookUrl })
    const ids = (await server.result('ListTaskPushNotificationConfigs', { taskId: task.id })).configs.map((c: any) => c.id)
    expect(ids).toEqual(['c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10'])
  })

  it("deletes a trimmed task's configs with it", async () => {
    const store = new MemoryStore()
    await start({ store, settledTaskRetention: 1 })
    const { task: first } = await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })
    await server.result('CreateTaskPushNotificationConfig', { taskId: first.id, id: 'c1', url: hookUrl })
    await server.result('CancelTask', { id: first.id })
    expect(await store.listPushConfigs(first.id)).toHaveLength(1)
    await server.result('SendMessage', { message: userMessage('go', { skill: 'work' }) })
    expect(await store.get(first.id)).toBeUndefined()
    expect(await store.listPushConfigs(first.id)).toEqual([])
  })
})

describe('SSRF guard by default', () => {
  it('refuses internal push URLs at registration, naming the field, and writes nothing', async () => {
    await start({ allowPrivatePush: false })
    const { task } = await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })
    const refused = await server.rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: hookUrl })
    expect(refused.body.error.code).toBe(-32602)
    expect(refused.body.error.data[0].fieldViolations[0].field).toBe('params.url')
    expect(refused.body.error.message).toContain('loopback')
    const viaSend = await server.rpc('SendMessage', {
      message: userMessage('go', { skill: 'work', contextId: 'ssrf' }),
      configuration: { taskPushNotificationConfig: { url: 'http://localhost:9/hook' } },
    })
    expect(viaSend.body.error.data[0].fieldViolations[0].field).toBe('params.configuration.taskPushNotificationConfig.url')
    expect((await server.result('ListTasks', { contextId: 'ssrf' })).totalSize).toBe(0)
    expect(deliveries).toEqual([])
  })
})
