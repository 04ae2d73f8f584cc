import mariadb from 'mariadb'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PrismaStore } from '../store/prisma/prisma-store.js'
import { expectUnreachable, keepingLogger, killConnections, nowhereUrl } from '../store/sql/mysql/__fixture__/cut-pools.js'
import { closeAfterEach, quiet } from './__fixture__/job-server.js'
import { queued, settings, tableQueueCases, type TableRow } from './__fixture__/table-queue-cases.js'
import { RUNTIME_TABLES } from '@a2a-agent/generators/mysql'
import { MYSQL_OUTBOX_TABLE } from '../push/outbox/mysql-outbox-sql.js'
import { MYSQL_JOBS_TABLE, MysqlJobQueue, mysqlJobId } from './mysql-job-queue.js'

// MysqlJobQueue on a real MariaDB (a database of this file's own), through a listening server and
// through the queue's own interface; two queues on one database stand for two processes.

let database: TestDatabase
beforeAll(async () => {
  database = await openDatabase('mysql')
}, 60_000)
const later = closeAfterEach(() => query(`DROP TABLE IF EXISTS ${MYSQL_JOBS_TABLE}`))
afterAll(async () => {
  await database?.close()
})

async function query(sql: string, values: unknown[] = []): Promise<any[]> {
  const connection = await mariadb.createConnection(database.url.replace(/^mysql:/, 'mariadb:'))
  try {
    return await connection.query({ sql, bigIntAsNumber: true }, values)
  } finally {
    await connection.end()
  }
}

tableQueueCases({
  queue: (options) => {
    const made = new MysqlJobQueue({ url: database.url, pollingIntervalMs: 20, logger: quiet, ...options })
    later(() => made.stop())
    return made
  },
  store: () => new PrismaStore(database.db),
  rows: () => query('SELECT * FROM a2a_jobs ORDER BY run_at, id') as Promise<TableRow[]>,
  idOf: mysqlJobId,
  // Done and dead jobs leave the (agent, run_at) index the claim scans.
  deadRow: { run_at: null },
  later,
})

it("its table and the push outbox's are among the tables a2a migrate leaves out of the app's schema", () => {
  expect(RUNTIME_TABLES).toEqual(expect.arrayContaining([MYSQL_JOBS_TABLE, MYSQL_OUTBOX_TABLE]))
})

it('refuses a URL that is not MySQL or names no database, and no URL nor pool', () => {
  expect(() => new MysqlJobQueue({ url: 'postgresql://root:secret@127.0.0.1/app' })).toThrow(
    'MysqlJobQueue url must be a mysql:// or mariadb:// URL, e.g. mysql://root@127.0.0.1:3306/invoices; got one starting "postgresql:"',
  )
  expect(() => new MysqlJobQueue({})).toThrow("MysqlJobQueue needs pool (a mariadb pool) or url (the app's mysql:// URL")
  expect(() => new MysqlJobQueue({ url: 'mysql://root@127.0.0.1:3306/' })).toThrow('MysqlJobQueue needs the database in its URL: mysql://user:password@host:3306/<database>')
})

it('on a pool of its own, logs each connection killed under it and goes on: a job enqueued after runs', async () => {
  // A database of the queue's own: its connections are the only ones there, and only they are killed.
  const own = await openDatabase('mysql')
  later(() => own.close())
  const logger = keepingLogger()
  const queue = new MysqlJobQueue({ url: own.url, pollingIntervalMs: 20, logger })
  later(() => queue.stop())
  const ran: string[] = []
  await queue.work({ run: async (job) => void ran.push(job.key), dead: async () => {}, concurrency: 2 })
  await queue.enqueue(queued('before'), settings)
  await expect.poll(() => ran).toEqual(['before'])
  expect(await killConnections(own.url)).toBeGreaterThan(0)
  await expect.poll(() => logger.lines.filter((line) => line.startsWith('a2a: job queue database connection lost: SqlError: '))).not.toEqual([])
  await queue.enqueue(queued('after'), settings)
  await expect.poll(() => ran).toEqual(['before', 'after'])
})

it('on a URL where nothing listens, start() rejects naming the URL without its password, and the failed connects are logged', async () => {
  const logger = keepingLogger()
  const queue = new MysqlJobQueue({ url: await nowhereUrl('hunter2'), logger })
  later(() => queue.stop())
  await expectUnreachable('MysqlJobQueue', () => queue.start(), logger, 'a2a: job queue database connection lost: ')
})

it('prunes without waiting on a row another process is settling: old jobs go, the row in flight is untouched', async () => {
  const queue = new MysqlJobQueue({ url: database.url, pollingIntervalMs: 20, logger: quiet, keepMs: 10_000 })
  later(() => queue.stop())
  for (const key of ['old', 'busy']) await queue.enqueue(queued(key), settings)
  await query(`UPDATE ${MYSQL_JOBS_TABLE} SET state = 'done', run_at = NULL, updated_at = updated_at - 60000 WHERE id = ?`, [mysqlJobId('old')])
  await query(`UPDATE ${MYSQL_JOBS_TABLE} SET state = 'active', run_at = run_at + 60000 WHERE id = ?`, [mysqlJobId('busy')])
  // Another process's worker is writing the end of its attempt, its transaction still open: its
  // row now sits just past the old ones in the (state, updated_at) index a range DELETE scans.
  const other = await mariadb.createConnection(database.url.replace(/^mysql:/, 'mariadb:'))
  later(() => other.end())
  await other.query('START TRANSACTION')
  await other.query(`UPDATE ${MYSQL_JOBS_TABLE} SET state = 'done', run_at = NULL, worker = NULL WHERE id = ?`, [mysqlJobId('busy')])
  later(() => other.query('ROLLBACK'))
  // A worker starting prunes first; a prune that waited on the settle's lock would hold it for innodb_lock_wait_timeout (50 s).
  const started = queue.work({ run: async () => {}, dead: async () => {}, concurrency: 1 })
  const waited = new Promise((resolve) => setTimeout(resolve, 3000, 'still waiting after 3 s'))
  expect(await Promise.race([started.then(() => 'started'), waited])).toBe('started')
  expect((await query(`SELECT id, state FROM ${MYSQL_JOBS_TABLE}`)).map((row) => row.id)).toEqual([mysqlJobId('busy')])
  later(async () => (await started).stop())
})
