import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'

// Real processes on a real PostgreSQL and MariaDB (a database of this file's own on each) and a
// push receiver on loopback: a job survives kill -9 of its worker and completes on another.

let database: TestDatabase
let sqliteDatabase: TestDatabase
let mysqlDatabase: TestDatabase
let receiver: Server
let receiverUrl: string
let pushes: Array<{ body: any }> = []
const children: ChildProcess[] = []

beforeAll(async () => {
  database = await openDatabase('postgres')
  sqliteDatabase = await openDatabase('sqlite')
  mysqlDatabase = await openDatabase('mysql')
  receiver = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      pushes.push({ body: JSON.parse(text) })
      response.writeHead(204).end()
    })
  }).listen(0, '127.0.0.1')
  await new Promise((resolve) => receiver.once('listening', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
}, 60_000)
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  pushes = []
})
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
  await database?.close()
  await sqliteDatabase?.close()
  await mysqlDatabase?.close()
})

/** Starts a fixture process in `role` and resolves with the first line it prints. */
function start(role: string, url = database.url): Promise<{ child: ChildProcess; line: string; lines: string[] }> {
  const child = spawn(process.execPath, ['--conditions=@a2a-agent/source', '--import', 'tsx', new URL('./__fixture__/job-process.ts', import.meta.url).pathname, url, role], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line))
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (lines.length) {
        clearInterval(timer)
        resolve({ child, line: lines[0]!, lines })
      }
    }, 20)
    child.once('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`${role} process exited with ${code} before it started`))
    })
  })
}

async function rpc(endpoint: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body: any = await response.json()
  if (body.error) throw new Error(JSON.stringify(body.error))
  return body.result
}

const kindOf = (body: any): string =>
  body.statusUpdate ? body.statusUpdate.status.state : body.artifactUpdate ? `artifact ${body.artifactUpdate.artifact.artifactId}` : Object.keys(body)[0]!

it('a job survives kill -9 of its worker mid-run: another worker completes it once, each push delivered once', async () => {
  const web = await start('serve')
  const endpoint = web.line
  const hanging = await start('work-and-hang')
  expect(hanging.line).toBe('working')
  const { task } = await rpc(endpoint, 'SendMessage', {
    message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: '2026-11' }] },
    configuration: { taskPushNotificationConfig: { url: receiverUrl } },
  })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  // The first worker stored the artifact (and its push went out), then hangs mid-run.
  await expect.poll(() => pushes.map((push) => kindOf(push.body)), { timeout: 20_000, interval: 50 }).toContain('artifact statement')
  await expect.poll(() => hanging.lines, { timeout: 5000 }).toContain('hanging on attempt 1')
  // Time for its outbox to record the receiver's answer, then the kill.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  hanging.child.kill('SIGKILL')
  await start('work')
  await expect.poll(async () => (await rpc(endpoint, 'GetTask', { id: task.id })).status.state, { timeout: 30_000, interval: 200 }).toBe('TASK_STATE_COMPLETED')
  const done = await rpc(endpoint, 'GetTask', { id: task.id })
  expect(done.artifacts).toEqual([{ artifactId: 'statement', name: 'statement', parts: [{ text: 'statement for 2026-11' }] }])
  expect(done.status.message.parts).toEqual([{ text: 'statement for 2026-11 ready (attempt 2)' }])
  // Every event once, none repeated by the kill or the retry (waited for a while after the last).
  await expect.poll(() => pushes.map((push) => kindOf(push.body)), { timeout: 10_000 }).toContain('TASK_STATE_COMPLETED')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  // The task as sent, WORKING from the hand-off, the first worker's artifact, the second's COMPLETED.
  expect(pushes.map((push) => kindOf(push.body))).toEqual(['task', 'TASK_STATE_WORKING', 'artifact statement', 'TASK_STATE_COMPLETED'])
}, 90_000)

it('SQLite: a job survives kill -9 of its one-process app and completes, once, when the app starts again', async () => {
  const first = await start('serve-and-hang', sqliteDatabase.url)
  const { task } = await rpc(first.line, 'SendMessage', { message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: '2026-10' }] } })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  await expect.poll(() => first.lines, { timeout: 10_000 }).toContain('hanging on attempt 1')
  await expect.poll(async () => (await rpc(first.line, 'GetTask', { id: task.id })).artifacts?.length, { timeout: 5000 }).toBe(1)
  first.child.kill('SIGKILL')
  const second = await start('serve', sqliteDatabase.url)
  // Taken back once the killed attempt's timeout (8 s) and grace have passed.
  await expect.poll(async () => (await rpc(second.line, 'GetTask', { id: task.id })).status.state, { timeout: 20_000, interval: 200 }).toBe('TASK_STATE_COMPLETED')
  const done = await rpc(second.line, 'GetTask', { id: task.id })
  expect(done.artifacts).toEqual([{ artifactId: 'statement', name: 'statement', parts: [{ text: 'statement for 2026-10' }] }])
  expect(done.status.message.parts).toEqual([{ text: 'statement for 2026-10 ready (attempt 2)' }])
}, 60_000)

it('MySQL: a job survives kill -9 of its worker mid-run and completes, once, on another worker, each push delivered once', async () => {
  const web = await start('serve', mysqlDatabase.url)
  const hanging = await start('work-and-hang', mysqlDatabase.url)
  expect(hanging.line).toBe('working')
  const { task } = await rpc(web.line, 'SendMessage', {
    message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: '2026-09' }] },
    configuration: { taskPushNotificationConfig: { url: receiverUrl } },
  })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  await expect.poll(() => hanging.lines, { timeout: 10_000 }).toContain('hanging on attempt 1')
  await expect.poll(async () => (await rpc(web.line, 'GetTask', { id: task.id })).artifacts?.length, { timeout: 5000 }).toBe(1)
  // Its artifact's push went out, and its outbox recorded the receiver's answer, before the kill.
  await expect.poll(() => pushes.map((push) => kindOf(push.body)), { timeout: 20_000, interval: 50 }).toContain('artifact statement')
  await new Promise((resolve) => setTimeout(resolve, 1000))
  hanging.child.kill('SIGKILL')
  // A worker started at once waits out the killed attempt's lease (timeout 8 s and grace), then takes it.
  await start('work', mysqlDatabase.url)
  await expect.poll(async () => (await rpc(web.line, 'GetTask', { id: task.id })).status.state, { timeout: 20_000, interval: 200 }).toBe('TASK_STATE_COMPLETED')
  const done = await rpc(web.line, 'GetTask', { id: task.id })
  expect(done.artifacts).toEqual([{ artifactId: 'statement', name: 'statement', parts: [{ text: 'statement for 2026-09' }] }])
  expect(done.status.message.parts).toEqual([{ text: 'statement for 2026-09 ready (attempt 2)' }])
  // Every event once, none repeated by the kill or the retry (waited for a while after the last).
  await expect.poll(() => pushes.map((push) => kindOf(push.body)), { timeout: 10_000 }).toContain('TASK_STATE_COMPLETED')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(pushes.map((push) => kindOf(push.body))).toEqual(['task', 'TASK_STATE_WORKING', 'artifact statement', 'TASK_STATE_COMPLETED'])
}, 60_000)
