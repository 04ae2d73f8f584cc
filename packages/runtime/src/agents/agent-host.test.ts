import type { AddressInfo } from 'node:net'
import { createServer, type Server } from 'node:http'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import { mounted } from '../testing/mount.js'
import { defineSkill } from '../skills/skill.js'
import { tokenResolver, userMessage } from '../testing/test-server.js'
import { PrismaPg } from '@prisma/adapter-pg'
import { apiKeyResolver } from '../auth/api-keys.js'
import { PrismaClient as PgClient } from '../store/prisma/__fixture__/postgres/generated/client/client.js'
import { createAgentHost, type AgentHost, type AgentHostOptions } from './agent-host.js'

const ledger = defineSkill({ id: 'ledger', description: 'books an entry', handler: (ctx) => ctx.complete(`booked ${ctx.text}`) })
const monthly = defineSkill({
  id: 'monthly',
  description: 'asks for the month, then reports',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput('which month?')
    await ctx.complete(`report for ${ctx.text}`)
  },
})

let server: Server | undefined
let host: AgentHost
let url: string
afterEach(async () => {
  await host?.shutdown({ timeoutMs: 500 })
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

async function start(extra: Partial<AgentHostOptions> = {}) {
  host = createAgentHost({
    resolvePrincipal: tokenResolver({ alice: { owner: 'alice' }, bob: { owner: 'bob' } }),
    agents: [
      { id: 'books', skills: [ledger], card: { name: 'Books', description: 'Keeps the books', version: '1.0.0' } },
      { id: 'reports', skills: [monthly], card: { name: 'Reports', description: 'Monthly reports', version: '1.0.0' }, maxTurnsPerHour: 2 },
    ],
    canUse: (principal, id) => principal.owner === 'alice' || id === 'books',
    ...extra,
  })
  server = createServer(mounted(host, express())).listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server!.once('listening', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const auth = (token?: string): Record<string, string> => (token ? { Authorization: `Bearer ${token}` } : {})
const get = (path: string, token?: string) => fetch(`${url}${path}`, { headers: auth(token) })
async function rpc(agent: string, method: string, params: unknown, token = 'alice') {
  const response = await fetch(`${url}/a2a/${agent}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...auth(token) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return { status: response.status, body: response.status === 200 ? ((await response.json()) as any) : undefined }
}
const send = (agent: string, text: string, token = 'alice', extra: Record<string, unknown> = {}) => rpc(agent, 'SendMessage', { message: userMessage(text, extra) }, token)

describe('many agents in one app', () => {
  it('lists the agents a caller may use with their card URLs, each card under its own base URL', async () => {
    await start()
    const index = await get('/a2a/agents', 'alice')
    expect(index.headers.get('cache-control')).toBe('private, no-store')
    expect(await index.json()).toEqual({
      agents: [
        { id: 'books', name: 'Books', description: 'Keeps the books', cardUrl: `${url}/a2a/books/.well-known/agent-card.json` },
        { id: 'reports', name: 'Reports', description: 'Monthly reports', cardUrl: `${url}/a2a/reports/.well-known/agent-card.json` },
      ],
    })
    const card = (await (await get('/a2a/reports/.well-known/agent-card.json', 'alice')).json()) as any
    expect(card.supportedInterfaces.map((i: any) => i.url)).toEqual([`${url}/a2a/reports`, `${url}/a2a/reports/rest`])
    expect(card.skills.map((s: any) => s.id)).toEqual(['monthly'])
    expect((await send('books', 'rent')).body.result.task.status.message.parts[0].text).toBe('booked rent')
    // The HTTP+JSON binding of an agent is under its base URL too.
    const rest = await fetch(`${url}/a2a/books/rest/tasks`, { headers: { 'A2A-Version': '1.0', ...auth('alice') } })
    expect(((await rest.json()) as any).tasks).toHaveLength(1)
  })

  it('answers 404 on every route of an agent the caller may not use, as for an unknown one, and 401 to anonymous callers', async () => {
    await start()
    expect(((await (await get('/a2a/agents', 'bob')).json()) as any).agents.map((a: any) => a.id)).toEqual(['books'])
    for (const path of ['/a2a/reports/.well-known/agent-card.json', '/a2a/reports/rest/tasks', '/a2a/reports/artifacts/x/y', '/a2a/nope/.well-known/agent-card.json']) {
      expect((await get(path, 'bob')).status, path).toBe(404)
    }
    expect((await send('reports', 'March', 'bob')).status).toBe(404)
    for (const path of ['/a2a/agents', '/a2a/reports/.well-known/agent-card.json', '/a2a/nope/.well-known/agent-card.json']) {
      const anonymous = await get(path)
      expect(anonymous.status, path).toBe(401)
      expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=')
    }
  })

  it("keeps each agent's tasks and limits apart: a task id of one agent is unknown on the other", async () => {
    await start()
    const task = (await send('books', 'rent')).body.result.task
    expect((await rpc('books', 'GetTask', { id: task.id })).body.result.id).toBe(task.id)
    expect((await rpc('reports', 'GetTask', { id: task.id })).body.error.code).toBe(-32001)
    expect((await rpc('reports', 'ListTasks', {})).body.result.totalSize).toBe(0)
    // reports takes two turns an hour; books is not limited.
    expect((await send('reports', 'a')).status).toBe(200)
    expect((await send('reports', 'b')).status).toBe(200)
    expect((await send('reports', 'c')).status).toBe(429)
    expect((await send('books', 'd')).status).toBe(200)
  })

  it('takes a paused agent out of the index and its card away, rejects its new tasks, and keeps its paused tasks', async () => {
    await start()
    const waiting = (await send('reports', 'report')).body.result.task
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    host.pause('reports')
    expect(((await (await get('/a2a/agents', 'alice')).json()) as any).agents.map((a: any) => a.id)).toEqual(['books'])
    expect((await get('/a2a/reports/.well-known/agent-card.json', 'alice')).status).toBe(404)
    const rejected = (await send('reports', 'another')).body.result.task
    expect(rejected.status.state).toBe('TASK_STATE_REJECTED')
    expect(rejected.status.message.parts[0].text).toContain('Reports is paused')
    const answer = await rpc('reports', 'SendMessage', { message: userMessage('March', { taskId: waiting.id }) })
    expect(answer.body.error).toMatchObject({ code: -32004, message: expect.stringContaining('keeps its state') })
    expect((await rpc('reports', 'GetTask', { id: waiting.id })).body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    host.resume('reports')
    const resumed = await rpc('reports', 'SendMessage', { message: userMessage('March', { taskId: waiting.id }) })
    expect(resumed.body.result.task.status.message.parts[0].text).toBe('report for March')
  })

  it('serves public cards to anonymous callers when every agent is for everyone', async () => {
    await start({ canUse: undefined })
    expect((await get('/a2a/reports/.well-known/agent-card.json')).status).toBe(200)
    expect((await get('/a2a/nope/.well-known/agent-card.json')).status).toBe(401)
    expect((await get('/a2a/agents')).status).toBe(401)
    expect((await send('reports', 'x', 'nobody')).status).toBe(401)
  })

  it('refuses bad agent ids and empty hosts', () => {
    const card = { name: 'x', description: 'x', version: '1' }
    const resolvePrincipal = tokenResolver({})
    expect(() => createAgentHost({ resolvePrincipal, agents: [] })).toThrow('at least one agent')
    expect(() => createAgentHost({ resolvePrincipal, agents: [{ id: 'Has Space', skills: [ledger], card }] })).toThrow('Agent id "Has Space"')
    expect(() => createAgentHost({ resolvePrincipal, agents: [{ id: 'agents', skills: [ledger], card }] })).toThrow('not "agents"')
    expect(() =>
      createAgentHost({
        resolvePrincipal,
        agents: [
          { id: 'a', skills: [ledger], card },
          { id: 'a', skills: [ledger], card },
        ],
      }),
    ).toThrow('share the id')
  })

  it("refuses anonymous callers in the binding's own shape: JSON-RPC -31401, HTTP+JSON a google.rpc.Status", async () => {
    await start()
    const jsonRpc = await fetch(`${url}/a2a/books`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
    })
    expect(jsonRpc.status).toBe(401)
    expect(jsonRpc.headers.get('www-authenticate')).toContain('resource_metadata=')
    expect(((await jsonRpc.json()) as any).error).toMatchObject({ code: -31401, message: expect.stringContaining('Authentication required') })
    // An unknown agent's routes answer alike: anonymous callers learn nothing.
    for (const path of ['/a2a/books/rest/tasks', '/a2a/nope/rest/tasks', '/a2a/agents']) {
      const rest = await get(path)
      expect(rest.status, path).toBe(401)
      expect(((await rest.json()) as any).error, path).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: expect.stringContaining('Authentication required') })
    }
  })

  it('answers 503 with Retry-After, never 500, while the credentials cannot be checked for want of the database', async () => {
    // A real client on a port where no PostgreSQL listens: every lookup is refused, as during a storm of cut connections.
    const db = new PgClient({ adapter: new PrismaPg({ connectionString: 'postgresql://root@127.0.0.1:1/none' }) })
    try {
      await start({ resolvePrincipal: apiKeyResolver(db) })
      const key = 'Bearer a2a_00000000000000000000000000000000'
      const jsonRpc = await fetch(`${url}/a2a/books`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: key },
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      })
      expect(jsonRpc.status).toBe(503)
      expect(jsonRpc.headers.get('retry-after')).toBe('5')
      const error = ((await jsonRpc.json()) as any).error
      expect(error).toMatchObject({ code: -31503, message: expect.stringContaining('cannot reach its database') })
      expect(error.data).toContainEqual(expect.objectContaining({ reason: 'UNAVAILABLE', metadata: { retryAfter: '5' } }))
      for (const path of ['/a2a/books/rest/tasks', '/a2a/agents', '/a2a/books/.well-known/agent-card.json']) {
        const rest = await fetch(`${url}${path}`, { headers: { Authorization: key } })
        expect(rest.status, path).toBe(503)
        expect(rest.headers.get('retry-after'), path).toBe('5')
        expect(((await rest.json()) as any).error, path).toMatchObject({ code: 503, status: 'UNAVAILABLE' })
      }
    } finally {
      await db.$disconnect()
    }
  })
})
