/**
 * serve()'s roles through a real listening server: `agent` answers the A2A routes and 404 for the
 * app's; `web` the app's and not the A2A routes; `worker` health only, and it alone sweeps stopped
 * runs (none other sweeps even once at start-up) and starts the app's background services; `all` does everything; a bad A2A_ROLE is one line.
 */
import express from 'express'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentHost } from '../agents/agent-host.js'
import type { BackgroundService } from '../core/background-service.js'
import { createExchange } from '../exchange/exchange.js'
import { a2aListener } from '../host/a2a-listener.js'
import { setDefaultLogger } from '../log/logger.js'
import { defineSkill } from '../skills/skill.js'
import { makeRecord } from '../store/conformance-fixtures.js'
import { MemoryStore } from '../store/memory-store.js'
import { tokenResolver } from '../testing/test-server.js'
import { parseRole } from './roles.js'
import { serve, StartupError, type ServedApp, type Serving } from './serve.js'

const echo = defineSkill({ id: 'echo', description: 'echo', handler: (ctx) => ctx.complete() })
const card = { name: 'Roles', description: 'roles', version: '0.0.0' }
const resolvePrincipal = tokenResolver({ tok: { owner: 'alice' } })
const LEASE_MS = 200

let serving: Serving | undefined
afterEach(async () => {
  await serving?.stop()
  serving = undefined
  setDefaultLogger(undefined)
})

/** An app with its own route (/hello), one agent on `store`, and a background service that records its calls. */
function app(store = new MemoryStore()) {
  const calls: string[] = []
  const service: BackgroundService = { start: () => void calls.push('start'), stop: () => void calls.push('stop') }
  const build = (): ServedApp => {
    const exchange = createExchange({ skills: [echo], card, resolvePrincipal, store, runLeaseMs: LEASE_MS })
    const web = express()
    web.get('/hello', (_request, response) => void response.json({ hello: 'world' }))
    return { listener: a2aListener(exchange, web), exchange, background: [service] }
  }
  return { build, calls, store }
}

const start = (role: string | undefined, build: () => ServedApp, env: Record<string, string> = {}) => {
  Object.assign(process.env, env)
  return serve({ name: 'roles', start: build, role: role as never, port: 0, host: '127.0.0.1', envFile: false, signals: false, exit: false, logger: pino({ level: 'silent' }) })
}

const status = async (path: string) => (await fetch(`${serving!.url.replace('localhost', '127.0.0.1')}${path}`)).status

/** A WORKING task whose process stopped: its lease expired a minute ago. */
const stranded = (id: string) => ({
  ...makeRecord({ id, state: 'TASK_STATE_WORKING', time: Date.now() - 60_000 }),
  skill: 'echo',
  lease: { runner: 'gone', until: Date.now() - 60_000 },
})

describe('roles', () => {
  it("agent: the card, the bindings and health; the app's own routes 404; no background work", async () => {
    const { build, calls, store } = app()
    serving = await start('agent', build)
    expect(serving.role).toBe('agent')
    expect(await status('/.well-known/agent-card.json')).toBe(200)
    expect(await status('/healthz')).toBe(200)
    expect(await status('/hello')).toBe(404)
    await store.create(stranded('left'))
    // Many sweep intervals (a quarter of a lease each) pass: no sweep here.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2))
    expect((await store.get('left'))?.task.status.state).toBe('TASK_STATE_WORKING')
    expect(calls).toEqual([])
    await serving.stop()
    serving = undefined
    // Stopped at shutdown under every role, as a service that queued but never worked must close.
    expect(calls).toEqual(['stop'])
  })

  it("web: the app's routes and health; no A2A route, no sweep", async () => {
    const { build, calls, store } = app()
    serving = await start('web', build)
    expect(await status('/hello')).toBe(200)
    expect(await status('/.well-known/agent-card.json')).toBe(404)
    const rpc = await fetch(`${serving.url.replace('localhost', '127.0.0.1')}/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    expect(rpc.status).toBe(404)
    expect(await status('/readyz')).toBe(200)
    await store.create(stranded('left'))
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2))
    expect((await store.get('left'))?.task.status.state).toBe('TASK_STATE_WORKING')
    expect(calls).toEqual([])
  })

  it("worker: health only; it sweeps stopped runs and starts the app's background services, stopping them at shutdown", async () => {
    const { build, calls, store } = app()
    serving = await start('worker', build)
    expect(await status('/hello')).toBe(404)
    expect(await status('/.well-known/agent-card.json')).toBe(404)
    expect(await status('/healthz')).toBe(200)
    expect(calls).toEqual(['start'])
    await store.create(stranded('left'))
    await expect.poll(async () => (await store.get('left'))?.task.status.state, { timeout: LEASE_MS * 10 }).toBe('TASK_STATE_FAILED')
    await serving.stop()
    serving = undefined
    expect(calls).toEqual(['start', 'stop'])
  })

  it('a task stranded before start-up: agent and web processes never sweep it, not even once at start; a worker does', async () => {
    const { build, calls, store } = app()
    await store.create(stranded('left'))
    for (const role of ['agent', 'web']) {
      serving = await start(role, build)
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS))
      expect((await store.get('left'))?.task.status.state, role).toBe('TASK_STATE_WORKING')
      await serving.stop()
      serving = undefined
    }
    serving = await start('worker', build)
    await expect.poll(async () => (await store.get('left'))?.task.status.state, { timeout: LEASE_MS * 10 }).toBe('TASK_STATE_FAILED')
    expect(calls).toEqual(['stop', 'stop', 'start'])
  })

  it("an exchange made outside serve() sweeps by itself; with background: 'manual' once its service starts", async () => {
    const store = new MemoryStore()
    await store.create(stranded('auto'))
    const auto = createExchange({ skills: [echo], card, resolvePrincipal, store, runLeaseMs: LEASE_MS })
    await expect.poll(async () => (await store.get('auto'))?.task.status.state, { timeout: LEASE_MS * 10 }).toBe('TASK_STATE_FAILED')
    await auto.shutdown({ timeoutMs: 100 })
    await store.create(stranded('manual'))
    const manual = createExchange({ skills: [echo], card, resolvePrincipal, store, runLeaseMs: LEASE_MS, background: 'manual' })
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS))
    expect((await store.get('manual'))?.task.status.state).toBe('TASK_STATE_WORKING')
    for (const service of manual.background()) service.start()
    await expect.poll(async () => (await store.get('manual'))?.task.status.state, { timeout: LEASE_MS * 10 }).toBe('TASK_STATE_FAILED')
    await manual.shutdown({ timeoutMs: 100 })
  })

  it("an exchange the app makes from start()'s context after start() returned follows the role: web never sweeps, a worker does", async () => {
    for (const role of ['web', 'worker']) {
      const store = new MemoryStore()
      await store.create(stranded('left'))
      let late: ReturnType<typeof createExchange> | undefined
      serving = await start(role, () => {
        // Made once start() has returned, in its async context (the timer carries it).
        setTimeout(() => (late = createExchange({ skills: [echo], card, resolvePrincipal, store, runLeaseMs: LEASE_MS })), 20)
        return { listener: a2aListener(createExchange({ skills: [echo], card, resolvePrincipal, runLeaseMs: LEASE_MS })) }
      })
      await expect.poll(() => late).toBeDefined()
      if (role === 'web') {
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2))
        expect((await store.get('left'))?.task.status.state).toBe('TASK_STATE_WORKING')
      } else await expect.poll(async () => (await store.get('left'))?.task.status.state, { timeout: LEASE_MS * 10 }).toBe('TASK_STATE_FAILED')
      await serving.stop()
      serving = undefined
      await late!.shutdown({ timeoutMs: 100 })
    }
  })

  it('all (the default, A2A_ROLE unset): every route, the sweep and the background services', async () => {
    const { build, calls, store } = app()
    delete process.env.A2A_ROLE
    serving = await start(undefined, build)
    expect(serving.role).toBe('all')
    expect(await status('/hello')).toBe(200)
    expect(await status('/.well-known/agent-card.json')).toBe(200)
    expect(calls).toEqual(['start'])
    await store.create(stranded('left'))
    await expect.poll(async () => (await store.get('left'))?.task.status.state, { timeout: LEASE_MS * 10 }).toBe('TASK_STATE_FAILED')
  })

  it('A2A_ROLE is read when the role option is absent; an agent host splits the same way', async () => {
    const host = createAgentHost({ resolvePrincipal, agents: [{ id: 'main', skills: [echo], card }] })
    const web = express().get('/hello', (_request, response) => void response.json({}))
    try {
      serving = await start(undefined, () => ({ listener: a2aListener(host, web), exchange: host }), { A2A_ROLE: 'agent' })
    } finally {
      delete process.env.A2A_ROLE
    }
    expect(serving.role).toBe('agent')
    expect(await status('/a2a/main/.well-known/agent-card.json')).toBe(200)
    expect(await status('/hello')).toBe(404)
  })

  it('a bad role stops start-up with one line naming the roles; a listener not from a2aListener cannot be split', async () => {
    const { build } = app()
    const bad = await start('workers', build).catch((error: unknown) => error)
    expect(bad).toBeInstanceOf(StartupError)
    expect((bad as Error).message).toBe('roles: A2A_ROLE="workers" is not a role; set one of web, agent, worker, all (default all)')
    const exchange = createExchange({ skills: [echo], card, resolvePrincipal })
    const plain = await start('agent', () => ({ listener: (_request, response) => void response.end(), exchange })).catch((error: unknown) => error)
    expect((plain as Error).message).toMatch(/^roles: A2A_ROLE=agent needs the listener a2aListener\(\) made/)
    await exchange.shutdown({ timeoutMs: 100 })
    expect(parseRole(' worker ')).toBe('worker')
    expect(parseRole('')).toBe('all')
  })
})
