/**
 * Spans through a real listening server with an SDK registered as an app registers one (an
 * in-memory exporter here): the caller's traceparent continues through request → A2A method →
 * skill run → store statements → push delivery, and on to the push receiver, with one trace id;
 * a run that outlives its request, and a resumed INPUT_REQUIRED task, stay in their callers' traces;
 * the push outbox's workers (PostgreSQL's and MySQL's) deliver in the trace of the write that queued each row.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { context, propagation, SpanKind, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createAgentHost, type AgentHost } from '../agents/agent-host.js'
import { createHttpServer } from '../http/http-server.js'
import { a2aListener } from '../host/a2a-listener.js'
import { defineSkill } from '../skills/skill.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { prepareSqlite } from '../store/prisma/prepare-sqlite.js'
import { SqliteStore } from '../store/sql/sqlite/sqlite-store.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { OUTBOX_DATABASES } from '../push/outbox/__fixture__/outbox-databases.js'
import { gate } from '../testing/gate.js'
import { bindingClient, type BindingClient } from '../testing/binding-client.js'
import { startTestServer, tokenResolver, userMessage } from '../testing/test-server.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`

let hold = gate()
const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})
const slow = defineSkill({
  id: 'slow',
  description: 'waits',
  handler: async (ctx) => {
    await hold.opened
    await ctx.complete('done')
  },
})
const ask = defineSkill({
  id: 'ask',
  description: 'asks once',
  handler: async (ctx) => {
    if (ctx.text === 'start') return ctx.requireInput('which one?')
    await ctx.complete(`got ${ctx.text}`)
  },
})

let database: TestDatabase
let store: SqliteStore
let host: AgentHost
let server: Server
let receiver: Server
let pushUrl: string
const pushed: IncomingHttpHeaders[] = []
const pushedBodies: string[] = []
const client = (agent: string): BindingClient => {
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/${agent}`
  return bindingClient('JSONRPC', { jsonRpc: base, rest: `${base}/rest`, token: 'alice' })
}

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  database = await openDatabase('sqlite')
  await prepareSqlite(database.db)
  store = new SqliteStore(database.url)
  host = createAgentHost({
    resolvePrincipal: tokenResolver({ alice: { owner: 'alice' } }),
    shared: { store, allowPrivatePush: true },
    agents: [
      { id: 'main', skills: [echo], card: { name: 'Main', description: 'main', version: '0.0.0' } },
      { id: 'slow', skills: [slow], card: { name: 'Slow', description: 'slow', version: '0.0.0' } },
      { id: 'ask', skills: [ask], card: { name: 'Ask', description: 'ask', version: '0.0.0' } },
    ],
  })
  server = createHttpServer(a2aListener(host)).listen(0, '127.0.0.1')
  receiver = createServer((request, response) => {
    pushed.push(request.headers)
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      pushedBodies.push(body)
      response.writeHead(200).end()
    })
  }).listen(0, '127.0.0.1')
  await Promise.all([server, receiver].map((s) => new Promise((resolve) => s.once('listening', resolve))))
  pushUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
})

afterAll(async () => {
  await host?.shutdown({ timeoutMs: 1000 })
  server?.close()
  receiver?.close()
  store?.close()
  await database?.close()
  trace.disable()
  context.disable()
  propagation.disable()
})

beforeEach(() => exporter.reset())

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name)
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
const idOf = (span: ReadableSpan) => span.spanContext().spanId

async function spansWhen(condition: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  for (let i = 0; i < 300; i++) {
    const spans = exporter.getFinishedSpans()
    if (condition(spans)) return spans
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return exporter.getFinishedSpans()
}

describe('a SendMessage through the multi-agent host', () => {
  it("request → method → run → store statements → push delivery in the caller's trace, sent on to the receiver", async () => {
    const result = (await client('main').result(
      'SendMessage',
      { message: userMessage('hello'), configuration: { taskPushNotificationConfig: { url: pushUrl, token: 'push-secret' } } },
      { headers: { traceparent: traceparent(TRACE, CALLER_SPAN) } },
    )) as { task: { id: string } }
    const spans = await spansWhen((all) => byName(all, 'push delivery').length > 0 && all.some((span) => span.kind === SpanKind.SERVER))
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([TRACE]))

    const [request] = spans.filter((span) => span.kind === SpanKind.SERVER)
    expect(request!.name).toBe('POST /a2a/main')
    expect(parentOf(request!)).toBe(CALLER_SPAN)
    expect(request!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'a2a.binding': 'jsonrpc',
      'a2a.agent': 'main',
      'a2a.method': 'SendMessage',
      'a2a.task_id': result.task.id,
    })

    const [method] = byName(spans, 'A2A SendMessage')
    expect(parentOf(method!)).toBe(idOf(request!))
    expect(method!.attributes).toMatchObject({ 'rpc.system': 'a2a', 'rpc.method': 'SendMessage' })

    const [run] = byName(spans, 'run echo')
    expect(parentOf(run!)).toBe(idOf(method!))
    expect(run!.attributes).toMatchObject({ 'a2a.skill': 'echo', 'a2a.task_id': result.task.id, 'a2a.task_state': 'TASK_STATE_COMPLETED' })

    const statements = spans.filter((span) => span.attributes['db.system'] === 'sqlite')
    expect(statements.length).toBeGreaterThan(0)
    for (const statement of statements) {
      expect(statement.kind).toBe(SpanKind.CLIENT)
      expect([idOf(request!), idOf(method!), idOf(run!)]).toContain(parentOf(statement))
      // The statement's text with placeholders: never a value it carries.
      expect(JSON.stringify(statement.attributes)).not.toContain('hello')
    }
    expect(statements.some((statement) => parentOf(statement) === idOf(run!))).toBe(true)

    const deliveries = byName(spans, 'push delivery')
    for (const delivery of deliveries) {
      expect(delivery.kind).toBe(SpanKind.CLIENT)
      // Under whichever stored the event: the run, or the method storing the run's first turn with its answer.
      expect([idOf(method!), idOf(run!)]).toContain(parentOf(delivery))
      expect(delivery.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'http.response.status_code': 200 })
    }
    // The receiver continues the same trace, under the delivery that reached it.
    const sent = pushed.map((headers) => headers.traceparent)
    expect(sent).toContain(traceparent(TRACE, idOf(deliveries[0]!)))
  })
})

describe('runs that outlive their request', () => {
  it("a run answered at once stays the child of its request's method span until it ends", async () => {
    hold = gate()
    const trace2 = '0af7651916cd43dd8448eb211c80319c'
    await client('slow').result(
      'SendMessage',
      { message: userMessage('go'), configuration: { returnImmediately: true } },
      { headers: { traceparent: traceparent(trace2, CALLER_SPAN) } },
    )
    const answered = await spansWhen((all) => byName(all, 'A2A SendMessage').length > 0 && all.some((span) => span.kind === SpanKind.SERVER))
    expect(byName(answered, 'run slow')).toEqual([])
    hold.open()
    const spans = await spansWhen((all) => byName(all, 'run slow').length > 0)
    const [run] = byName(spans, 'run slow')
    expect(run!.spanContext().traceId).toBe(trace2)
    expect(parentOf(run!)).toBe(idOf(byName(spans, 'A2A SendMessage')[0]!))
    expect(run!.attributes['a2a.task_state']).toBe('TASK_STATE_COMPLETED')
  })

  it("an INPUT_REQUIRED task resumed by a second caller runs on in that caller's trace", async () => {
    const first = '11111111111111111111111111111111'
    const second = '22222222222222222222222222222222'
    const asked = (await client('ask').result('SendMessage', { message: userMessage('start') }, { headers: { traceparent: traceparent(first, CALLER_SPAN) } })) as {
      task: { id: string; contextId: string; status: { state: string } }
    }
    expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    await client('ask').result(
      'SendMessage',
      { message: userMessage('blue', { taskId: asked.task.id, contextId: asked.task.contextId }) },
      { headers: { traceparent: traceparent(second, CALLER_SPAN) } },
    )
    const spans = await spansWhen((all) => byName(all, 'run ask').length === 2)
    const runs = byName(spans, 'run ask').map((run) => [run.spanContext().traceId, run.attributes['a2a.task_state']])
    expect(runs).toEqual([
      [first, 'TASK_STATE_INPUT_REQUIRED'],
      [second, 'TASK_STATE_COMPLETED'],
    ])
  })
})

describe('PostgresStore statements', () => {
  it('are client spans under the span that sent them, and none without one', async () => {
    const postgres = await openDatabase('postgres')
    const pgStore = new PostgresStore(postgres.url, { max: 2, onConnectionError: () => {} })
    try {
      await pgStore.ready()
      exporter.reset()
      await pgStore.get('no-such-task')
      expect(exporter.getFinishedSpans()).toEqual([])
      const tracer = trace.getTracer('test')
      await tracer.startActiveSpan('parent', async (parent) => {
        await pgStore.get('no-such-task')
        parent.end()
      })
      const spans = exporter.getFinishedSpans()
      const [parent] = byName(spans, 'parent')
      const statements = spans.filter((span) => span.attributes['db.system'] === 'postgresql')
      expect(statements.length).toBeGreaterThan(0)
      for (const statement of statements) {
        expect(parentOf(statement)).toBe(idOf(parent!))
        expect(statement.kind).toBe(SpanKind.CLIENT)
        expect(statement.name).toBe('SELECT postgresql')
        expect(statement.attributes['db.query.text']).toMatch(/^SELECT /)
      }
    } finally {
      await pgStore.close()
      await postgres.close()
    }
  })
})

for (const target of OUTBOX_DATABASES)
  describe(`the push outbox on ${target.provider}`, () => {
    it('delivers in the trace of the write that queued the row, on to the receiver', async () => {
      const database = await openDatabase(target.provider)
      const quiet = { warn: () => {}, error: () => {} }
      const outbox = target.outbox(database.url, { allowPrivate: true, logger: quiet, pollingIntervalSeconds: 0.5 })
      const store = target.store(database.url, 2)
      const outboxTrace = target.provider === 'postgres' ? '33333333333333333333333333333333' : '44444444444444444444444444444444'
      try {
        await outbox.start()
        // Rows written both ways: by the outbox (the task's first event) and by the store's task writes.
        const agent = await startTestServer({ skills: [echo], store, allowPrivatePush: true, pushDelivery: outbox, logger: quiet })
        try {
          await expect.poll(() => store.queuePushOutbox(target.outboxName)).toBe(true)
          pushed.length = 0
          pushedBodies.length = 0
          await agent.result(
            'SendMessage',
            { message: userMessage('hello'), configuration: { taskPushNotificationConfig: { url: pushUrl } } },
            { headers: { traceparent: traceparent(outboxTrace, CALLER_SPAN) } },
          )
          await expect.poll(() => pushedBodies.some((body) => body.includes('TASK_STATE_COMPLETED')), { timeout: 20_000, interval: 50 }).toBe(true)
        } finally {
          await agent.close()
        }
        const sent = pushed.map((headers) => String(headers.traceparent).split('-')[1])
        expect(sent.length).toBeGreaterThan(1)
        expect(new Set(sent)).toEqual(new Set([outboxTrace]))
        // Each worker's delivery span continues the caller's trace; webhook-client's span is its child.
        const finished = () => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === outboxTrace)
        // A delivery's span ends once the worker has recorded the receiver's answer, after the receiver saw the request.
        await expect.poll(() => byName(finished(), 'push outbox delivery').length).toBe(sent.length)
        const spans = finished()
        const consumers = byName(spans, 'push outbox delivery')
        for (const consumer of consumers) expect(consumer.kind).toBe(SpanKind.CONSUMER)
        const deliveries = byName(spans, 'push delivery')
        expect(deliveries.map(parentOf).sort()).toEqual(consumers.map(idOf).sort())
      } finally {
        await outbox.stop()
        await store.close()
        await database.close()
      }
    }, 40_000)
  })
