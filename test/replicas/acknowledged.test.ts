/**
 * What a crash can lose: only writes nobody was told about. The stores commit the writes that
 * arrive together in one transaction (group commit) and acknowledge each once its group has
 * committed; so a replica killed with SIGKILL in the middle of a stream of concurrent blocking
 * sends leaves every send it answered COMPLETED readable as COMPLETED after a restart, and every
 * task it made settled once the lease has run out. On SQLite, where a new task is held in the
 * process until its run's first turn ends (one insert, in its final state, for `done`), a
 * returnImmediately answer for a run still working waits for that insert too: every task it
 * answered is readable after the restart. On SQLite, on PostgreSQL and on MariaDB.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase, message, rpc, startReplica, stopReplicas, type Kind, type TestDatabase } from './harness.js'

const LEASE_MS = 2000
const CONCURRENCY = 24

afterAll(stopReplicas)

describe.each<Kind>(['sqlite', 'postgres', 'mysql'])('a replica killed under a stream of sends, on %s', (kind) => {
  let database: TestDatabase
  afterAll(async () => {
    await stopReplicas()
    await database?.drop()
  })

  it('keeps every write it acknowledged: each answered send reads back COMPLETED after the restart', { timeout: 90_000 }, async () => {
    database = await createDatabase(kind)
    const env = { RUN_LEASE_MS: String(LEASE_MS) }
    const a = await startReplica('a', database, env)
    const token = database.tokens.alice
    const answered: string[] = []
    const answeredWorking: string[] = []
    let killed = false
    // Blocking sends: a COMPLETED answer comes only after the run's final write was acknowledged.
    const sender = async () => {
      while (!killed) {
        const reply = await rpc(a, token, 'SendMessage', message('done')).catch(() => undefined)
        const task = reply?.body?.result?.task
        if (task?.status?.state === 'TASK_STATE_COMPLETED') answered.push(task.id as string)
      }
    }
    // returnImmediately sends of runs that keep working: answered once the task is stored.
    const holder = async () => {
      while (!killed) {
        const reply = await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } }).catch(() => undefined)
        const id = reply?.body?.result?.task?.id
        if (typeof id === 'string') answeredWorking.push(id)
      }
    }
    const senders = [...Array.from({ length: CONCURRENCY }, sender), holder(), holder()]
    await expect.poll(() => answered.length, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(200)
    killed = true
    await a.kill9()
    await Promise.all(senders)

    const restarted = await startReplica('a', database, env)
    const states = new Map<string, string>()
    for (const id of answered) states.set(id, (await rpc(restarted, token, 'GetTask', { id })).body.result?.status.state)
    expect([...states].filter(([, state]) => state !== 'TASK_STATE_COMPLETED')).toEqual([])
    expect(answeredWorking.length).toBeGreaterThan(0)
    for (const id of answeredWorking) expect((await rpc(restarted, token, 'GetTask', { id })).body.result?.id, id).toBe(id)
    // What was in flight at the kill is settled by the sweep, never left running.
    const running = async () => (await rpc(restarted, token, 'ListTasks', { statusFilter: undefined, pageSize: 100 })).body.result.tasks
    await expect
      .poll(async () => (await running()).filter((task: { status: { state: string } }) => /SUBMITTED|WORKING/.test(task.status.state)).length, {
        timeout: LEASE_MS * 3,
        interval: 200,
      })
      .toBe(0)
  })
})
