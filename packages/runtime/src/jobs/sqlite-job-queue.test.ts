import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeEach, expect, it } from 'vitest'
import { z } from 'zod'
import { defineJob } from '../skills/job.js'
import { MemoryStore } from '../store/memory-store.js'
import { userMessage } from '../testing/test-server.js'
import { closeAfterEach, serveJobs, stateOf } from './__fixture__/job-server.js'
import { tableQueueCases, type TableRow } from './__fixture__/table-queue-cases.js'
import { SqliteJobQueue } from './sqlite-job-queue.js'
import type { TableJobQueueOptions } from './table-job-queue.js'

// SqliteJobQueue on real SQLite files of this test's own (one per test; two queues on it stand for
// a process and the one after it), through a listening server and through its own interface.

const dir = mkdtempSync(join(tmpdir(), 'a2a-jobs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const later = closeAfterEach()
let files = 0
let file: string
beforeEach(() => {
  file = join(dir, `${++files}.jobs.db`)
})

function queueOn(path: string, options: TableJobQueueOptions = {}): SqliteJobQueue {
  const queue = new SqliteJobQueue({ file: path, pollingIntervalMs: 20, ...options })
  later(() => queue.close())
  return queue
}

tableQueueCases({
  queue: (options) => queueOn(file, options),
  store: () => new MemoryStore(),
  rows: async () => {
    const db = new Database(file, { readonly: true })
    try {
      return db.prepare('SELECT key AS id, * FROM a2a_job ORDER BY run_at, key').all() as TableRow[]
    } finally {
      db.close()
    }
  },
  idOf: (key) => key,
  later,
})

it('a queued job outlives its queue: a queue opened again on the file runs it', async () => {
  const store = new MemoryStore()
  const done = defineJob({ name: 'done', input: z.object({}), run: (ctx) => ctx.complete(`done on attempt ${ctx.attempt}`) })
  const first = queueOn(file)
  const before = await serveJobs([done], first, later, { store, worker: false })
  const { task } = await before.result('SendMessage', { message: userMessage('done') })
  expect(task.status.state).toBe('TASK_STATE_WORKING')
  await before.close()
  first.close()
  // No worker ran it; a new process (here: a new exchange and queue on the same store and file) does.
  const after = await serveJobs([done], queueOn(file), later, { store })
  await expect.poll(async () => (await stateOf(after, task.id)).message?.parts).toEqual([{ text: 'done on attempt 1' }])
})

it('refuses an in-memory file', () => {
  expect(() => new SqliteJobQueue({ file: ':memory:' })).toThrow('SqliteJobQueue needs a file, not ":memory:": its jobs must outlive the process (use MemoryJobQueue otherwise)')
})
