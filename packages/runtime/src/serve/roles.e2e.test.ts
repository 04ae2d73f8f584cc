/**
 * Three processes of one app by role on one database (PostgreSQL, then MariaDB), started together
 * (their push outboxes race to create their tables, pg-boss's queue on PostgreSQL): the agent process answers A2A and 404 for the app's
 * route, the web process the app's route and no A2A, the worker health only. The work is the
 * worker's: with it stopped, a push notification the agent queued waits and a task left by a
 * stopped run stays WORKING, even through the start-up of another agent and web process; started again, it delivers the one and settles the other FAILED.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeRecord } from '../store/conformance-fixtures.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import type { MysqlStore } from '../store/sql/mysql/mysql-store.js'
import type { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { OUTBOX_DATABASES } from '../push/outbox/__fixture__/outbox-databases.js'

const FIXTURE = new URL('./__fixture__/roles-app.ts', import.meta.url).pathname
const RUNTIME = new URL('../..', import.meta.url).pathname
const LEASE_MS = 400

let receiver: Server
const hits: { path: string; body: any }[] = []
interface AppProcess {
  child: ChildProcess
  exited: Promise<number>
  url: Promise<string>
  stderr(): string
}
const processes: AppProcess[] = []

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      hits.push({ path: request.url!, body: JSON.parse(body) })
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  for (const app of processes) if (app.child.exitCode === null) app.child.kill('SIGKILL')
  receiver?.close()
})

function startApp(role: string, databaseUrl: string): AppProcess {
  const child = spawn(process.execPath, ['--conditions=@a2a-agent/source', '--import', 'tsx', FIXTURE], {
    cwd: RUNTIME,
    env: { ...process.env, A2A_ROLE: role, DATABASE_URL: databaseUrl, PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'info', RUN_LEASE_MS: String(LEASE_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = once(child, 'exit').then(([code]) => code as number)
  const url = expect
    .poll(() => /"url":"(http:\/\/localhost:\d+)"/.exec(stdout)?.[1], { timeout: 40_000, interval: 100 })
    .toBeDefined()
    .then(() => /"url":"(http:\/\/localhost:\d+)"/.exec(stdout)![1]!.replace('localhost', '127.0.0.1'))
  const app = { child, exited, url, stderr: () => stderr }
  processes.push(app)
  return app
}

const status = async (base: string, path: string, init?: RequestInit) => (await fetch(`${base}${path}`, init)).status
const rpc = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' }, body: JSON.stringify(body) })
const sendWithPush = (path: string) =>
  rpc({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: { role: 'ROLE_USER', messageId: `m-${path}`, parts: [{ text: 'hi' }] },
      configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}` } },
    },
  })
const kinds = (path: string) => hits.filter((hit) => hit.path === path).map((hit) => Object.keys(hit.body)[0])
const finalState = (path: string) => {
  const body = hits.filter((hit) => hit.path === path).at(-1)?.body
  return body?.task?.status.state ?? body?.statusUpdate?.status.state
}
for (const target of OUTBOX_DATABASES)
  describe(`on ${target.provider}`, () => {
    let database: TestDatabase
    let store: PostgresStore | MysqlStore
    beforeAll(async () => {
      database = await openDatabase(target.provider)
      store = target.store(database.url, 2)
    })
    afterAll(async () => {
      await store?.close()
      await database?.close()
    })
    const stateOf = async (id: string) => (await store.get(id))?.task.status.state
    const start = (role: string) => startApp(role, database.url)
    // Paths of this database's tasks, apart from the other's.
    const firstPath = `/${target.provider}/first`
    const secondPath = `/${target.provider}/second`

    it("web, agent and worker on one database: each serves its part, and the background work is the worker's", async () => {
      const [web, agent, worker] = [start('web'), start('agent'), start('worker')]
      const [webUrl, agentUrl, workerUrl] = await Promise.all([web.url, agent.url, worker.url])
      for (const app of [web, agent, worker]) expect(app.stderr()).toBe('')

      expect(await status(agentUrl, '/hello')).toBe(404)
      expect(await status(agentUrl, '/.well-known/agent-card.json')).toBe(200)
      expect(await status(webUrl, '/hello')).toBe(200)
      expect(await status(webUrl, '/.well-known/agent-card.json')).toBe(404)
      expect(await status(webUrl, '/a2a', rpc({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }))).toBe(404)
      expect(await status(workerUrl, '/hello')).toBe(404)
      expect(await status(workerUrl, '/a2a', rpc({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }))).toBe(404)
      for (const base of [webUrl, agentUrl, workerUrl]) expect(await status(base, '/readyz')).toBe(200)

      // The worker delivers what the agent queued.
      const first = await fetch(`${agentUrl}/a2a`, sendWithPush(firstPath))
      expect(((await first.json()) as any).result.task.status.state).toBe('TASK_STATE_COMPLETED')
      await expect.poll(() => finalState(firstPath), { timeout: 20_000 }).toBe('TASK_STATE_COMPLETED')
      const delivered = kinds(firstPath)

      // Without a worker, nothing is delivered and nothing is swept.
      worker.child.kill('SIGTERM')
      expect(await worker.exited).toBe(0)
      const second = await fetch(`${agentUrl}/a2a`, sendWithPush(secondPath))
      expect(((await second.json()) as any).result.task.status.state).toBe('TASK_STATE_COMPLETED')
      const left = {
        ...makeRecord({ id: 'left-by-a-stopped-run', state: 'TASK_STATE_WORKING', time: Date.now() - 60_000 }),
        skill: 'done',
        lease: { runner: 'gone', until: Date.now() - 60_000 },
      }
      await store.create(left)
      // Nor by an agent or web process started after it was left: no start-up sweep either.
      const late = [start('agent'), start('web')]
      await Promise.all(late.map((app) => app.url))
      // Several leases: a sweep would run every quarter of one, a delivery poll every half second.
      await new Promise((resolve) => setTimeout(resolve, 2500))
      expect(hits.filter((hit) => hit.path === secondPath)).toEqual([])
      expect(await stateOf(left.id)).toBe('TASK_STATE_WORKING')

      const again = start('worker')
      await again.url
      await expect.poll(() => finalState(secondPath), { timeout: 20_000 }).toBe('TASK_STATE_COMPLETED')
      await expect.poll(() => stateOf(left.id), { timeout: 10_000 }).toBe('TASK_STATE_FAILED')
      // Each event once: the first task's not again, the second's as the first's were.
      expect(kinds(firstPath)).toEqual(delivered)
      expect(kinds(secondPath)).toEqual(delivered)

      const running = [web, agent, again, ...late]
      for (const app of running) app.child.kill('SIGTERM')
      expect(await Promise.all(running.map((app) => app.exited))).toEqual(running.map(() => 0))
      expect(running.map((app) => app.stderr())).toEqual(running.map(() => ''))
    }, 120_000)
  })
