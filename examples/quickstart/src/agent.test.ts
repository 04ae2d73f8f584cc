import { spawn } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devKeyResolver } from '@a2a-agent/runtime'
import { createQuickstart } from './agent.js'

let server: Server
let url: string
const { listener, exchange } = createQuickstart({ resolvePrincipal: devKeyResolver('alice:key-alice,bob:key-bob') })

beforeAll(async () => {
  server = createServer(listener).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await exchange.shutdown({ timeoutMs: 1000 })
  server.closeAllConnections()
  server.close()
})

let id = 0
async function call(method: string, params: object, key = 'key-alice') {
  const response = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  })
  return { status: response.status, body: (await response.json()) as any }
}
const message = (skill: string, text: string, extra: object = {}) => ({
  message: { messageId: `q-${++id}`, role: 'ROLE_USER', parts: [{ text }], metadata: { skill }, ...extra },
})

describe('quickstart agent', () => {
  it('echo completes with a text artifact echoing the text', async () => {
    const { body } = await call('SendMessage', message('echo', 'hello there'))
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(body.result.task.artifacts[0]).toMatchObject({ name: 'echo', parts: [{ text: 'hello there' }] })
  })

  it('ask pauses for input and completes with the answer', async () => {
    const first = (await call('SendMessage', message('ask', 'hi'))).body.result.task
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
    const answer = { message: { messageId: `q-${++id}`, role: 'ROLE_USER', parts: [{ text: 'Ada' }], taskId: first.id } }
    const done = (await call('SendMessage', answer)).body.result.task
    expect(done.status.state).toBe('TASK_STATE_COMPLETED')
    expect(done.artifacts[0].parts[0].text).toBe('Hello, Ada!')
  })

  it('slow streams chunks into one artifact and honours cancel', async () => {
    const task = (await call('SendMessage', { ...message('slow', 'go'), configuration: { returnImmediately: true } })).body.result.task
    await expect
      .poll(async () => (await call('GetTask', { id: task.id })).body.result.artifacts?.[0]?.parts.length ?? 0, { timeout: 5000, interval: 200 })
      .toBeGreaterThanOrEqual(1)
    const canceled = (await call('CancelTask', { id: task.id })).body.result
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED')
    expect(canceled.artifacts[0].name).toBe('count')
    expect(exchange.activeRuns).toBe(0)
  })

  it('fail fails with a reason', async () => {
    const task = (await call('SendMessage', message('fail', 'this'))).body.result.task
    expect(task.status.state).toBe('TASK_STATE_FAILED')
    expect(task.status.message.parts[0].text).toContain('always fails')
  })

  it('names no framework on any response (no X-Powered-By)', async () => {
    for (const path of ['/a2a', '/.well-known/agent-card.json', '/no-such-page']) {
      const response = await fetch(`${url}${path}`)
      await response.arrayBuffer()
      expect(response.headers.get('x-powered-by'), path).toBeNull()
    }
  })

  it('keeps alice and bob apart, and refuses unknown keys with 401', async () => {
    const alices = (await call('SendMessage', message('echo', 'mine'))).body.result.task
    expect((await call('GetTask', { id: alices.id }, 'key-bob')).body.error.code).toBe(-32001)
    expect((await call('ListTasks', {}, 'key-nobody')).status).toBe(401)
  })
})

/** `npm start` at the repository root (the README's first command), in its own process group. */
function npmStart(env: Record<string, string | undefined>) {
  const root = fileURLToPath(new URL('../../..', import.meta.url))
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', ...env }
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name]
  // Its own process group, so stopping it also stops the nested npm → tsx → node chain.
  const child = spawn('npm', ['start', '--silent'], { cwd: root, detached: true, env: childEnv })
  let out = ''
  child.stdout.on('data', (chunk) => (out += chunk))
  child.stderr.on('data', (chunk) => (out += chunk))
  const base = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /on (http:\/\/localhost:\d+)\/a2a/.exec(out)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${out}`)))
  })
  return { base, output: () => out, stop: () => child.exitCode === null && process.kill(-child.pid!, 'SIGTERM') }
}

async function listTasks(base: string, token: string) {
  const response = await fetch(`${base}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
  })
  return response.status
}

describe('the README run command', () => {
  it('starts the agent on PORT with the A2A_DEV_KEYS map', async () => {
    const started = npmStart({ A2A_DEV_KEYS: 'carol:key-carol' })
    try {
      const base = await started.base
      const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as any
      expect(card.skills.map((s: any) => s.id)).toEqual(['echo', 'ask', 'slow', 'fail'])
      expect(await listTasks(base, 'key-carol')).toBe(200)
      expect(await listTasks(base, 'key-alice')).toBe(401)
    } finally {
      started.stop()
    }
  })

  it('takes the development keys its start script sets when A2A_DEV_KEYS is unset', async () => {
    const started = npmStart({ A2A_DEV_KEYS: undefined })
    try {
      expect(await listTasks(await started.base, 'key-alice')).toBe(200)
    } finally {
      started.stop()
    }
  })

  it('refuses to start under NODE_ENV=production, naming A2A_DEV_KEYS', async () => {
    const started = npmStart({ A2A_DEV_KEYS: undefined, NODE_ENV: 'production' })
    await expect(started.base).rejects.toThrow(/exited with 1: .*quickstart: A2A_DEV_KEYS is set while NODE_ENV=production/s)
  })
})
