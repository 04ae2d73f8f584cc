import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { Principal } from '../core/principal.js'
import { defineSkill } from '../skills/skill.js'
import type { SseEvent } from '../testing/sse-client.js'
import { gate } from '../testing/gate.js'
import { startTestServer, userMessage, type TestServer, type TestServerOptions } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

let release = gate()
const counter = defineSkill({
  id: 'count',
  description: 'two chunks, a pause, two more',
  handler: async (ctx) => {
    await ctx.working()
    const id = await ctx.artifact({ name: 'n', parts: '1' })
    await ctx.artifact({ artifactId: id, parts: '2', append: true })
    await release.opened
    await ctx.artifact({ artifactId: id, parts: '3', append: true })
    await ctx.artifact({ artifactId: id, parts: '4', append: true, lastChunk: true })
    await ctx.complete()
  },
})
const ask = defineSkill({ id: 'ask', description: 'asks', handler: (ctx) => ctx.requireInput('?') })
const burst = defineSkill({
  id: 'burst',
  description: 'fires many writes without awaiting each',
  handler: async (ctx) => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => ctx.artifact({ artifactId: 'a', parts: `${i}`, append: i > 0 })))
  },
})

let server: TestServer
afterEach(async () => {
  release.open()
  await server?.close()
  release = gate()
})
const start = async (options: Partial<TestServerOptions> = {}) => (server = await startTestServer({ check: wireCheck, skills: [counter, ask, burst], ...options }))

const kind = (event: SseEvent) => Object.keys(event.data.result ?? {})[0]
const taskIdOf = (event: SseEvent) => event.data.result.task.id as string

describe('SendStreamingMessage', () => {
  it('answers text/event-stream: the snapshot first, then every event in order, then closes', async () => {
    await start()
    release.open()
    const reply = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'count' }) }, { id: 'req-7' })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('text/event-stream')
    const events = await reply.ended
    expect(events.map(kind)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'])
    for (const event of events) {
      expect(event.data).toMatchObject({ jsonrpc: '2.0', id: 'req-7' })
      expect(Object.keys(event.data.result)).toHaveLength(1)
    }
    expect(events[0]!.data.result.task.status.state).toBe('TASK_STATE_SUBMITTED')
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
    const versions = events.map((e) => Number(e.id))
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
    expect(new Set(versions).size).toBe(versions.length)
  })

  it('answers an error before the first event as a plain JSON-RPC response', async () => {
    await start()
    const reply = await server.stream('SendStreamingMessage', { message: { role: 'ROLE_USER', parts: [] } })
    expect(reply.headers.get('content-type')).toContain('application/json')
    expect(reply.body.error.code).toBe(-32602)
  })

  it('closes once the task is interrupted', async () => {
    await start()
    const events = await (await server.stream('SendStreamingMessage', { message: userMessage('q', { skill: 'ask' }) })).ended
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
  })

  it('delivers concurrent writes in the order they were stored', async () => {
    await start()
    const events = await (await server.stream('SendStreamingMessage', { message: userMessage('b', { skill: 'burst' }) })).ended
    const chunks = events.filter((e) => kind(e) === 'artifactUpdate').map((e) => e.data.result.artifactUpdate.artifact.parts[0].text)
    const stored = await server.result('GetTask', { id: taskIdOf(events[0]!) })
    expect(chunks).toEqual(stored.artifacts[0].parts.map((p: any) => p.text))
    expect(chunks).toHaveLength(30)
  })

  it('paces idle streams with keep-alive comments', async () => {
    await start({ streamKeepAliveMs: 40 })
    const reply = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'count' }) })
    await expect.poll(() => reply.comments, { timeout: 2000 }).toBeGreaterThanOrEqual(2)
    release.open()
    await reply.ended
  })

  it('keeps the connection only when the client asks to: Connection: close ends the socket with the stream', async () => {
    await start()
    release.open()
    const { port } = new URL(server.url)
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('go', { skill: 'count' }) } })
    const exchange = (connection: string) =>
      new Promise<{ head: string; rest: string; endedByServer: boolean }>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1')
        let text = ''
        let endedByServer = false
        socket.setEncoding('utf8')
        socket.on('data', (chunk: string) => {
          text += chunk
          // A kept connection stays open after the last event: the client closes it.
          if (connection === 'keep-alive' && text.includes('TASK_STATE_COMPLETED')) socket.end()
        })
        socket.on('end', () => (endedByServer = !socket.writableEnded))
        socket.on('error', reject)
        socket.on('close', () => resolve({ head: text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase(), rest: text, endedByServer }))
        socket.write(
          `POST /a2a HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n` +
            `Connection: ${connection}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        )
      })
    const closed = await exchange('close')
    expect(closed.head).toContain('connection: close')
    expect(closed.rest).toContain('TASK_STATE_COMPLETED')
    expect(closed.endedByServer).toBe(true)
    const kept = await exchange('keep-alive')
    expect(kept.head).toContain('connection: keep-alive')
    expect(kept.rest).toContain('TASK_STATE_COMPLETED')
  })

  it('runs the task it created even when the client left before the first event', async () => {
    await start()
    const reply = await server.stream('SendStreamingMessage', { message: userMessage('go', { skill: 'count', contextId: 'gone' }) })
    reply.close()
    release.open()
    await expect.poll(async () => (await server.result('ListTasks', { contextId: 'gone' })).tasks[0]?.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('SubscribeToTask', () => {
  it('sends the snapshot, then only what it does not reflect, so no chunk is applied twice', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('go', { skill: 'count' }), configuration: { returnImmediately: true } })
    await expect.poll(async () => (await server.result('GetTask', { id: task.id })).artifacts?.[0]?.parts.length).toBe(2)
    const reply = await server.stream('SubscribeToTask', { id: task.id })
    const first = (await reply.next())!
    expect(kind(first)).toBe('task')
    release.open()
    const rest = await reply.ended
    const parts = [...first.data.result.task.artifacts[0].parts]
    for (const event of rest.slice(1).filter((e) => kind(e) === 'artifactUpdate')) {
      expect(Number(event.id)).toBeGreaterThan(Number(first.id))
      parts.push(...event.data.result.artifactUpdate.artifact.parts)
    }
    expect(parts.map((p) => p.text)).toEqual(['1', '2', '3', '4'])
  })

  it('answers -32004 for a terminal task and -32001 for an unknown or foreign one', async () => {
    await start()
    release.open()
    const { task } = await server.result('SendMessage', { message: userMessage('go', { skill: 'count' }) })
    expect((await server.stream('SubscribeToTask', { id: task.id })).body.error.code).toBe(-32004)
    expect((await server.stream('SubscribeToTask', { id: 'nope' })).body.error.code).toBe(-32001)
    const paused = (await server.result('SendMessage', { message: userMessage('q', { skill: 'ask' }) })).task
    expect((await server.stream('SubscribeToTask', { id: paused.id }, { token: 'bob' })).body.error.code).toBe(-32001)
  })

  it('gives several streams on one task every event in the same order; closing one affects no other', async () => {
    await start()
    const { task } = await server.result('SendMessage', { message: userMessage('go', { skill: 'count' }), configuration: { returnImmediately: true } })
    await expect.poll(async () => (await server.result('GetTask', { id: task.id })).artifacts?.[0]?.parts.length).toBe(2)
    const streams = await Promise.all([1, 2, 3].map(() => server.stream('SubscribeToTask', { id: task.id })))
    for (const s of streams) await s.next()
    streams[2]!.close()
    release.open()
    const [a, b] = await Promise.all([streams[0]!.ended, streams[1]!.ended])
    expect(a.map((e) => e.id)).toEqual(b.map((e) => e.id))
    expect(a.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
    expect((await server.result('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('seats', () => {
  it('refuses a stream past the cap with 429 before writing anything', async () => {
    await start({ maxStreamSeatsPerOwner: 2 })
    const open = [await server.stream('SendStreamingMessage', { message: userMessage('1', { skill: 'count' }) })]
    open.push(await server.stream('SendStreamingMessage', { message: userMessage('2', { skill: 'count' }) }))
    const before = (await server.result('ListTasks', {})).totalSize
    const refused = await server.stream('SendStreamingMessage', { message: userMessage('3', { skill: 'count' }) })
    expect(refused.status).toBe(429)
    expect(refused.body.error.message).toContain('at most 2')
    // No deadline frees a seat, but a client is told when to look again.
    expect(refused.headers.get('retry-after')).toBe('5')
    expect((await server.result('ListTasks', {})).totalSize).toBe(before)
    expect(server.exchange.activeRuns).toBe(2)
    expect((await server.stream('SendStreamingMessage', { message: userMessage('b', { skill: 'ask' }) }, { token: 'bob' })).status).toBe(200)
    open[0]!.close()
    await expect.poll(async () => (await server.stream('SendStreamingMessage', { message: userMessage('again', { skill: 'ask' }) })).status).toBe(200)
  })

  it("can evict the owner's oldest stream instead", async () => {
    await start({ maxStreamSeatsPerOwner: 1, streamSeatOverflow: 'evict-oldest' })
    const oldest = await server.stream('SendStreamingMessage', { message: userMessage('1', { skill: 'count' }) })
    await oldest.next()
    const newest = await server.stream('SendStreamingMessage', { message: userMessage('2', { skill: 'count' }) })
    const evicted = await oldest.ended
    expect(evicted.at(-1)).toMatchObject({ event: 'error', data: { error: { code: -32004 } } })
    release.open()
    expect((await newest.ended).at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED')
  })
})

describe('re-resolving the caller at each keep-alive', () => {
  it('ends the stream of a caller whose tenant changed, or who lost access', async () => {
    const table = new Map<string, Principal>([
      ['alice', { owner: 'alice' }],
      ['carol', { owner: 'carol' }],
    ])
    await start({
      streamKeepAliveMs: 40,
      resolvePrincipal: (request) => table.get(/Bearer (\S+)/.exec(request.headers.authorization ?? '')?.[1] ?? ''),
    })
    const moved = await server.stream('SendStreamingMessage', { message: userMessage('1', { skill: 'count' }) })
    const revoked = await server.stream('SendStreamingMessage', { message: userMessage('2', { skill: 'count' }) }, { token: 'carol' })
    await moved.next()
    await revoked.next()
    table.set('alice', { owner: 'alice', tenant: 'other' })
    table.delete('carol')
    expect((await moved.ended).at(-1)).toMatchObject({ event: 'error', data: { error: { code: -32001 } } })
    expect((await revoked.ended).at(-1)).toMatchObject({ event: 'error', data: { error: { code: -31401 } } })
  })
})
