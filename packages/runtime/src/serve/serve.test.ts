/**
 * serve() through a real listening server: the health routes, readiness off first at shutdown,
 * and one structured line per request on every route of a single agent and of an agent host,
 * with no credential and no message text in any line.
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentHost } from '../agents/agent-host.js'
import { createExchange } from '../exchange/exchange.js'
import { a2aListener } from '../host/a2a-listener.js'
import { consoleLogger, setDefaultLogger } from '../log/logger.js'
import { defineSkill } from '../skills/skill.js'
import { bindingClient } from '../testing/binding-client.js'
import { tokenResolver, userMessage } from '../testing/test-server.js'
import { serve, StartupError, type ServedApp, type Serving } from './serve.js'

const SECRET_TOKEN = 'tok-3c8f0e1d9a'
const SECRET_TEXT = 'the quarterly numbers are 42'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})
const card = { name: 'Served', description: 'served', version: '0.0.0' }
const resolvePrincipal = tokenResolver({ [SECRET_TOKEN]: { owner: 'alice' } })

/** A pino logger whose lines are kept, parsed. */
function capture(level = 'info') {
  const lines: Record<string, unknown>[] = []
  const raw: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk))
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { logger: pino({ level }, stream), lines, raw }
}

let serving: Serving | undefined
afterEach(async () => {
  await serving?.stop()
  serving = undefined
  setDefaultLogger(undefined)
})

const start = (app: () => ServedApp, logger: pino.Logger, extra: { drainDelayMs?: number } = {}) =>
  serve({ name: 'served', start: app, port: 0, host: '127.0.0.1', envFile: false, signals: false, exit: false, logger, ...extra })

const requests = (lines: Record<string, unknown>[]) => lines.filter((line) => line.msg === 'request')

describe('health routes', () => {
  it('/healthz answers while the process runs; /readyz follows the check and turns 503 first at shutdown', async () => {
    const { logger } = capture()
    let reachable = true
    const exchange = createExchange({ skills: [echo], card, resolvePrincipal })
    serving = await start(
      () => ({
        listener: a2aListener(exchange),
        exchange,
        check: async () => {
          if (!reachable) throw new Error('database unreachable: connect ECONNREFUSED 127.0.0.1:5432')
        },
      }),
      logger,
      { drainDelayMs: 300 },
    )
    const get = async (path: string) => {
      const response = await fetch(`${serving!.url.replace('localhost', '127.0.0.1')}${path}`)
      return { status: response.status, body: await response.json(), cache: response.headers.get('cache-control') }
    }
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' })
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' }, cache: 'no-store' })
    reachable = false
    expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'not ready', reason: 'database unreachable: connect ECONNREFUSED 127.0.0.1:5432' }, cache: 'no-store' })
    reachable = true
    const stopping = serving.stop()
    // The server still takes connections during the drain delay, and tells the balancer to go.
    expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'not ready', reason: 'shutting down' }, cache: 'no-store' })
    expect((await get('/healthz')).status).toBe(200)
    await stopping
    await expect(fetch(`${serving.url.replace('localhost', '127.0.0.1')}/healthz`)).rejects.toThrow()
    serving = undefined
  })

  it('a store whose readiness check fails stops start-up with one line naming the fix', async () => {
    const { logger } = capture()
    const exchange = createExchange({ skills: [echo], card, resolvePrincipal })
    const store = { ready: () => Promise.reject(new Error('PostgresStore: the database lacks table "A2aTask".\nRun npm run db:migrate')) }
    const failed = await start(() => ({ listener: a2aListener(exchange), exchange, store }), logger).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(StartupError)
    expect((failed as Error).message).toBe('served: PostgresStore: the database lacks table "A2aTask". Run npm run db:migrate')
    await exchange.shutdown({ timeoutMs: 100 })
  })
})

describe('request logs', () => {
  it('one line per request of a single agent, on both bindings, the card and refusals; no token, no message text', async () => {
    const { logger, lines, raw } = capture()
    const exchange = createExchange({ skills: [echo], card, resolvePrincipal })
    // The app builds its parts in start(), after serve() made its logger the runtime's.
    serving = await start(() => ({ listener: a2aListener(exchange), exchange }), logger)
    const base = serving.url.replace('localhost', '127.0.0.1')
    const rpc = bindingClient('JSONRPC', { jsonRpc: `${base}/a2a`, rest: `${base}/a2a/rest`, token: SECRET_TOKEN })
    const rest = bindingClient('HTTP+JSON', { jsonRpc: `${base}/a2a`, rest: `${base}/a2a/rest`, token: SECRET_TOKEN })
    const task = (await rpc.result('SendMessage', { message: userMessage(SECRET_TEXT) })) as { task: { id: string } }
    await rest.result('GetTask', { id: task.task.id })
    expect((await rpc.call('GetTask', { id: 'no-such-task' })).error?.code).toBe(-32001)
    expect((await rpc.call('SendMessage', { message: userMessage(SECRET_TEXT) }, { token: 'wrong-token' })).status).toBe(401)
    expect((await fetch(`${base}/.well-known/agent-card.json`)).status).toBe(200)
    await until(() => requests(lines).length === 5)
    const [send, get, missing, refused, cardLine] = requests(lines)
    expect(send).toMatchObject({ level: 30, binding: 'jsonrpc', method: 'SendMessage', status: 200, taskId: task.task.id, httpMethod: 'POST', path: '/a2a' })
    expect(send!.durationMs).toEqual(expect.any(Number))
    expect(send).not.toHaveProperty('code')
    expect(get).toMatchObject({ binding: 'http+json', method: 'GetTask', status: 200, taskId: task.task.id, path: `/a2a/rest/tasks/${task.task.id}` })
    expect(missing).toMatchObject({ binding: 'jsonrpc', method: 'GetTask', status: 200, code: -32001, taskId: 'no-such-task' })
    expect(refused).toMatchObject({ binding: 'jsonrpc', status: 401, code: -31401 })
    expect(cardLine).toMatchObject({ binding: 'card', status: 200, path: '/.well-known/agent-card.json' })
    const all = raw.join('')
    expect(all).not.toContain(SECRET_TOKEN)
    expect(all).not.toContain('wrong-token')
    expect(all).not.toContain(SECRET_TEXT)
  })

  it("an agent host's lines name the agent; its own warnings go through the same logger", async () => {
    const { logger, lines, raw } = capture()
    serving = await start(() => {
      const host = createAgentHost({
        resolvePrincipal,
        agents: [
          { id: 'main', skills: [echo], card },
          { id: 'helper', skills: [echo], card },
        ],
      })
      return { listener: a2aListener(host), exchange: host }
    }, logger)
    const base = serving.url.replace('localhost', '127.0.0.1')
    const helper = bindingClient('JSONRPC', { jsonRpc: `${base}/a2a/helper`, rest: `${base}/a2a/helper/rest`, token: SECRET_TOKEN })
    await helper.result('SendMessage', { message: userMessage(SECRET_TEXT) })
    // A near-miss field name is one of the runtime's warnings: it arrives as a pino line.
    await helper.call('ListTasks', { pageSizee: 3 })
    expect((await fetch(`${base}/a2a/agents`)).status).toBe(401)
    await until(() => requests(lines).length === 3)
    const [send, list, index] = requests(lines)
    expect(send).toMatchObject({ binding: 'jsonrpc', agent: 'helper', method: 'SendMessage', status: 200, path: '/a2a/helper' })
    expect(list).toMatchObject({ agent: 'helper', method: 'ListTasks' })
    expect(index).toMatchObject({ binding: 'agents', status: 401, path: '/a2a/agents' })
    expect(lines.some((line) => line.level === 40 && String(line.msg).includes('pageSizee'))).toBe(true)
    expect(raw.join('')).not.toContain(SECRET_TOKEN)
    expect(raw.join('')).not.toContain(SECRET_TEXT)
  })

  it('below LOG_LEVEL no request line is made', async () => {
    const { logger, lines } = capture('warn')
    const exchange = createExchange({ skills: [echo], card, resolvePrincipal })
    serving = await start(() => ({ listener: a2aListener(exchange), exchange }), logger)
    const base = serving.url.replace('localhost', '127.0.0.1')
    const rpc = bindingClient('JSONRPC', { jsonRpc: `${base}/a2a`, rest: `${base}/a2a/rest`, token: SECRET_TOKEN })
    await rpc.result('SendMessage', { message: userMessage('hi') })
    expect(requests(lines)).toEqual([])
    // The runtime's default logger is serve()'s until it is set again.
    expect(consoleLogger.isLevelEnabled!('warn')).toBe(true)
    expect(consoleLogger.isLevelEnabled!('info')).toBe(false)
  })
})

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(condition()).toBe(true)
}
