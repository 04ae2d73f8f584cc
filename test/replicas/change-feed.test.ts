/**
 * Two replicas on one MariaDB database hear each other's task writes through MysqlStore's change
 * feed (A2ATaskEvent read every 25 ms; MySQL has no LISTEN/NOTIFY), as notifications.test.ts
 * checks on PostgreSQL: a cancel served by B cuts the handler running on A at once and frees its
 * run slot; SubscribeToTask on B to A's run gets every update in order, also after every
 * connection to the database was killed mid-run.
 */
import { openSse } from '@a2a-agent/runtime/testing'
import { afterEach, expect, it } from 'vitest'
import { createDatabase, message, rpc, startReplica, stopReplicas, type Replica, type TestDatabase } from './harness.js'

let database: TestDatabase | undefined
afterEach(async () => {
  await stopReplicas()
  await database?.drop()
  database = undefined
})

async function twoReplicas(env: Record<string, string> = {}) {
  database = await createDatabase('mysql')
  const [a, b] = await Promise.all([startReplica('a', database, env), startReplica('b', database, env)])
  return { a, b, token: database.tokens.alice }
}

const subscribe = (replica: Replica, token: string, id: string) =>
  openSse(`${replica.base}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }), { 'A2A-Version': '1.0', Authorization: `Bearer ${token}` })

it('a cancel served by B cuts the handler running on A at once and frees its run slot', { timeout: 60_000 }, async () => {
  const { a, b, token } = await twoReplicas({ MAX_RUNS: '1' })
  const held = (await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.result.task.id as string
  await expect.poll(async () => (await rpc(b, token, 'GetTask', { id: held })).body.result.status.state).toBe('TASK_STATE_WORKING')
  // A's one run slot for alice is taken, for the whole agent.
  expect((await rpc(b, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.error?.code).toBe(-32004)

  const since = performance.now()
  expect((await rpc(b, token, 'CancelTask', { id: held })).body.result.status.state).toBe('TASK_STATE_CANCELED')
  // `hold` never writes again: only the change feed can reach it.
  await expect.poll(() => a.said.some((line) => line.cut === held), { timeout: 2000, interval: 10 }).toBe(true)
  expect(performance.now() - since).toBeLessThan(1000)
  const next = await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })
  expect(next.body.result?.task.status.state).toMatch(/SUBMITTED|WORKING/)
})

it('SubscribeToTask on B follows a run on A update by update, in order, also across killed connections', { timeout: 60_000 }, async () => {
  // Streams read the store on a timer only once a minute: what B sends within the test, the feed woke it for.
  const { a, b, token } = await twoReplicas({ TICKS: '40', TICK_MS: '60', STREAM_POLL_MS: '60000' })
  const id = (await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })).body.result.task.id as string
  const stream = await subscribe(b, token, id)
  await stream.next()
  // Mid-run, every connection to the database is killed: the feed's next read fails, listeners resync, and it reads on.
  await new Promise((resolve) => setTimeout(resolve, 900))
  expect(await database!.cut()).toBeGreaterThan(0)
  const events = await stream.ended
  const statuses = events.map((event) => event.data.result?.statusUpdate?.status ?? event.data.result?.task?.status)
  expect(statuses.at(-1)).toMatchObject({ state: 'TASK_STATE_COMPLETED' })
  // The snapshot, then every later version (40 updates and the completion) as its own event, none skipped.
  const versions = events.map((event) => Number(event.id))
  expect(versions).toEqual(Array.from({ length: versions.at(-1)! - versions[0]! + 1 }, (_, i) => versions[0]! + i))
  expect(versions.at(-1)).toBeGreaterThanOrEqual(41)
  const ticks = statuses.slice(1, -1).map((status) => Number(status.message.parts[0].text))
  expect(ticks).toEqual([...ticks].sort((x, y) => x - y))
  expect(a.stderr.join('\n')).not.toMatch(/Unhandled|uncaught/i)
})
