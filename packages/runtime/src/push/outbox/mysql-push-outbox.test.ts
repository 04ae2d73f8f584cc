import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import type { Logger } from '../../log/logger.js'
import { openDatabase, type TestDatabase } from '../../store/prisma/__fixture__/databases.js'
import { PrismaStore } from '../../store/prisma/prisma-store.js'
import { expectUnreachable, keepingLogger, killConnections, nowhereUrl } from '../../store/sql/mysql/__fixture__/cut-pools.js'
import { startTestServer, userMessage } from '../../testing/test-server.js'
import { startReceiver, type Receiver } from '../__fixture__/receiver.js'
import { echo } from '../__fixture__/skills.js'
import { MysqlPushOutbox } from './mysql-push-outbox.js'

// MysqlPushOutbox on a pool of its own (its URL), when that pool's connections die or cannot be
// made; push-outbox.test.ts has the rest. The outbox's table is in a database of its own: its
// connections are the only ones there, and only they are killed.

let tasks: TestDatabase
let own: TestDatabase
let receiver: Receiver
beforeAll(async () => {
  ;[tasks, own, receiver] = await Promise.all([openDatabase('mysql'), openDatabase('mysql'), startReceiver()])
}, 60_000)
afterAll(async () => {
  await Promise.all([tasks?.close(), own?.close(), receiver?.close()])
})

const started: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of started.splice(0).reverse()) await close()
})

const quiet: Logger = { warn: () => {}, error: () => {} }

it('logs each connection killed under it and goes on: a notification sent after is delivered', async () => {
  const logger = keepingLogger()
  const outbox = new MysqlPushOutbox({ url: own.url, allowPrivate: true, logger, pollingIntervalSeconds: 0.5 })
  await outbox.start()
  started.push(() => outbox.stop())
  const server = await startTestServer({ skills: [echo], store: new PrismaStore(tasks.db), allowPrivatePush: true, pushDelivery: outbox, logger: quiet })
  started.push(() => server.close())
  const send = (path: string) =>
    server.result('SendMessage', { message: userMessage(path, { skill: 'echo' }), configuration: { taskPushNotificationConfig: { url: receiver.url(path) } } })
  const completed = (path: string) => receiver.hitsOf(path).some((hit) => hit.body.statusUpdate?.status.state === 'TASK_STATE_COMPLETED')

  await send('/before')
  await expect.poll(() => completed('/before'), { timeout: 10_000 }).toBe(true)
  expect(await killConnections(own.url)).toBeGreaterThan(0)
  await expect.poll(() => logger.lines.filter((line) => line.startsWith('a2a: push outbox database connection lost: SqlError: '))).not.toEqual([])
  await send('/after')
  await expect.poll(() => completed('/after'), { timeout: 10_000 }).toBe(true)
})

it('on a URL where nothing listens, start() rejects naming the URL without its password, and the failed connects are logged', async () => {
  const logger = keepingLogger()
  const outbox = new MysqlPushOutbox({ url: await nowhereUrl('hunter2'), logger })
  started.push(() => outbox.stop())
  await expectUnreachable('MysqlPushOutbox', () => outbox.start(), logger, 'a2a: push outbox database connection lost: ')
})
