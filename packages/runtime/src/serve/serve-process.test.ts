/**
 * serve() in a real process, as a scaffolded app runs: on a SQLite file without the store's
 * tables it exits 1 with one line naming the command to run (the SqliteStore constructor's throw
 * included); on a migrated one it logs JSON lines under NODE_ENV=production, and SIGTERM turns
 * /readyz to 503 before the server stops, then exits 0; OTEL_TRACES_EXPORTER turns the app's
 * OpenTelemetry Node SDK on, and the caller's trace goes on in the spans it exports.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'

const FIXTURE = new URL('./__fixture__/sqlite-app.ts', import.meta.url).pathname
const RUNTIME = new URL('../..', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'a2a-serve-'))
let database: TestDatabase

beforeAll(async () => {
  database = await openDatabase('sqlite')
})
afterAll(async () => {
  await database?.close()
  rmSync(dir, { recursive: true, force: true })
})

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@a2a-agent/source', '--import', 'tsx', FIXTURE], {
    cwd: RUNTIME,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = once(child, 'exit').then(([code]) => code as number)
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

it('exits 1 with one line naming npm run db:migrate when the SQLite file lacks the tables', async () => {
  const empty = join(dir, 'empty.db')
  new Database(empty).close()
  const app = start({ DATABASE_URL: `file:${empty}` })
  expect(await app.exited).toBe(1)
  const lines = app.stderr().split('\n').filter(Boolean)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^sqlite-app: SqliteStore: the database lacks A2ATask, .*\(npm run db:migrate\)\.$/)
  expect(app.stdout()).not.toContain('Error')
}, 60_000)

it('logs JSON in production; SIGTERM answers /readyz 503 first, then stops and exits 0', async () => {
  const app = start({ DATABASE_URL: database.url, NODE_ENV: 'production', SHUTDOWN_DRAIN_MS: '2000' })
  await expect.poll(() => app.stdout().includes('sqlite-app on '), { timeout: 30_000 }).toBe(true)
  const lines = () =>
    app
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  const url = String(lines()[0]!.url).replace('localhost', '127.0.0.1')
  expect(lines()[0]).toMatchObject({ level: 30, msg: expect.stringMatching(/^sqlite-app on http:\/\/localhost:\d+\/a2a$/) })
  expect((await fetch(`${url}/readyz`)).status).toBe(200)
  const sent = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', messageId: 'm-1', parts: [{ text: 'hi' }] } } }),
  })
  expect(sent.status).toBe(200)
  await expect.poll(() => lines().some((line) => line.msg === 'request'), { timeout: 10_000 }).toBe(true)
  expect(lines().find((line) => line.msg === 'request')).toMatchObject({ binding: 'jsonrpc', method: 'SendMessage', status: 200 })

  app.child.kill('SIGTERM')
  await expect
    .poll(
      async () =>
        await fetch(`${url}/readyz`).then(
          (response) => response.status,
          () => 0,
        ),
      { timeout: 10_000 },
    )
    .toBe(503)
  expect(await fetch(`${url}/readyz`).then((response) => response.json())).toEqual({ status: 'not ready', reason: 'shutting down' })
  expect(await app.exited).toBe(0)
  expect(lines().map((line) => line.msg)).toEqual(expect.arrayContaining(['signal received', 'shutting down: /readyz answers 503', 'stopped']))
  expect(app.stderr()).toBe('')
}, 60_000)

it("OTEL_TRACES_EXPORTER starts the Node SDK: the spans of a request continue the caller's trace", async () => {
  const app = start({
    DATABASE_URL: database.url,
    NODE_ENV: 'production',
    OTEL_TRACES_EXPORTER: 'console',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
    OTEL_SERVICE_NAME: 'sqlite-app-test',
  })
  // The console exporter prints spans as objects between the JSON log lines.
  await expect.poll(() => /"url":"http:\/\/localhost:\d+"/.test(app.stdout()), { timeout: 30_000 }).toBe(true)
  const url = /"url":"(http:\/\/localhost:\d+)"/.exec(app.stdout())![1]!.replace('localhost', '127.0.0.1')
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const sent = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', messageId: 'm-otel', parts: [{ text: 'hi' }] } } }),
  })
  expect(sent.status).toBe(200)
  await expect.poll(() => app.stdout().includes("name: 'A2A SendMessage'"), { timeout: 10_000 }).toBe(true)
  await expect.poll(() => app.stdout().includes("name: 'run echo'"), { timeout: 10_000 }).toBe(true)
  expect(app.stdout()).toContain(`traceId: '${traceId}'`)
  expect(app.stdout()).toContain("'service.name': 'sqlite-app-test'")
  app.child.kill('SIGTERM')
  expect(await app.exited).toBe(0)
}, 60_000)
