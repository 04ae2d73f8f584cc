/**
 * No task left behind by a dead process: a replica is killed with SIGKILL while 20 of its tasks
 * are WORKING and 5 SUBMITTED; once it is restarted every one of them is terminal and readable
 * within the lease time, and a subscriber on another replica gets the final event. On SQLite (a
 * file two processes share), on PostgreSQL and on MariaDB.
 */
import { openSse } from '@a2a-agent/runtime/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase, message, rpc, startReplica, stopReplicas, type Kind, type TestDatabase } from './harness.js'

const LEASE_MS = 3000

afterAll(stopReplicas)

describe.each<Kind>(['sqlite', 'postgres', 'mysql'])('a replica killed mid-run, on %s', (kind) => {
  let database: TestDatabase
  afterAll(async () => {
    await stopReplicas()
    await database?.drop()
  })

  it('leaves no task behind: all 25 FAILED and readable within a lease of the restart, the final event reaching another replica', { timeout: 90_000 }, async () => {
    database = await createDatabase(kind)
    const env = { RUN_LEASE_MS: String(LEASE_MS) }
    const [a, b] = await Promise.all([startReplica('a', database, env), startReplica('b', database, env)])
    const token = database.tokens.alice
    const send = async (skill: string) => {
      const reply = await rpc(a, token, 'SendMessage', { ...message(skill), configuration: { returnImmediately: true } })
      expect(reply.status).toBe(200)
      return reply.body.result.task.id as string
    }
    const working = await Promise.all(Array.from({ length: 20 }, () => send('hold')))
    const submitted = await Promise.all(Array.from({ length: 5 }, () => send('queue')))
    const stateOn = async (replica: typeof a, id: string) => (await rpc(replica, token, 'GetTask', { id })).body.result?.status.state
    const states = (replica: typeof a, ids: string[]) => Promise.all(ids.map((id) => stateOn(replica, id)))
    await expect.poll(() => states(b, working), { timeout: 15_000 }).toEqual(working.map(() => 'TASK_STATE_WORKING'))
    expect(await states(b, submitted)).toEqual(submitted.map(() => 'TASK_STATE_SUBMITTED'))

    // A subscriber on B, to a task A runs.
    const subscribed = await openSse(`${b.base}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: working[0] } }), {
      'A2A-Version': '1.0',
      Authorization: `Bearer ${token}`,
    })
    expect((await subscribed.next())?.data.result).toMatchObject({ task: { id: working[0], status: { state: 'TASK_STATE_WORKING' } } })

    await a.kill9()
    const restarted = await startReplica('a', database, env)
    const since = performance.now()
    const all = [...working, ...submitted]
    await expect.poll(() => states(restarted, all), { timeout: LEASE_MS, interval: 100 }).toEqual(all.map(() => 'TASK_STATE_FAILED'))
    expect(performance.now() - since).toBeLessThan(LEASE_MS)
    for (const id of all) {
      const task = (await rpc(b, token, 'GetTask', { id })).body.result
      const text = task.status.message.parts[0].text as string
      expect(text).toMatch(submitted.includes(id) ? /^The agent stopped before it could start on this task/ : /^The agent stopped while working on this task/)
    }
    // B follows A's task by polling the shared store, so the settlement (a status and a history
    // message, written together) may reach it as one status update or as the whole task.
    const final = (await subscribed.ended).at(-1)?.data.result
    const settled = final?.statusUpdate ?? final?.task
    expect(settled).toMatchObject({ status: { state: 'TASK_STATE_FAILED' } })
    expect(settled.taskId ?? settled.id).toBe(working[0])
  })
})
