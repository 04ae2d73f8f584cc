/**
 * Two replicas on one PostgreSQL database hear each other's task writes through LISTEN/NOTIFY:
 * a cancel served by B cuts the handler running on A at once (the handler never writes again)
 * and frees its run slot; SubscribeToTask on B to A's run gets every update in order, also after
 * the listening connections were terminated (they reconnect, and polling bridges the gap), and
 * while no connection can listen at all; and a task paused on A and resumed on B is followed on A
 * to its end.
 */
import { openSse } from '@a2a-agent/runtime/testing'
import { afterEach, expect, it } from 'vitest'
import { createDatabase, message, onServer, rpc, startReplica, stopReplicas, type Replica, type TestDatabase } from './harness.js'

let database: TestDatabase | undefined
afterEach(async () => {
  await stopReplicas()
  await database?.drop()
  database = undefined
})

async function twoReplicas(env: Record<string, string> = {}) {
  database = await createDatabase('postgres')
  const [a, b] = await Promise.all([startReplica('a', database, env), startReplica('b', database, env)])
  return { a, b, token: database.tokens.alice }
}

const subscribe = (replica: Replica, token: string, id: string) =>
  openSse(`${replica.base}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }), { 'A2A-Version': '1.0', Authorization: `Bearer ${token}` })

/** The status of each event a stream carried (a status update or a task snapshot). */
const statuses = (events: { data: any }[]) => events.map((event) => event.data.result?.statusUpdate?.status ?? event.data.result?.task?.status)

/** How many connections of the test database LISTEN: one per replica while notifications are live. */
const listening = async () =>
  (await database!.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'a2a task notifications'`))[0]!.n

it('a cancel served by B cuts the handler running on A at once and frees its run slot', { timeout: 60_000 }, async () => {
  const { a, b, token } = await twoReplicas({ MAX_RUNS: '1' })
  await expect.poll(listening, { timeout: 10_000 }).toBe(2)
  const held = (await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.result.task.id as string
  await expect.poll(async () => (await rpc(b, token, 'GetTask', { id: held })).body.result.status.state).toBe('TASK_STATE_WORKING')
  // A's one run slot for alice is taken.
  expect((await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.error?.code).toBe(-32004)

  const since = performance.now()
  expect((await rpc(b, token, 'CancelTask', { id: held })).body.result.status.state).toBe('TASK_STATE_CANCELED')
  // `hold` never writes again: only the notification can reach it.
  await expect.poll(() => a.said.some((line) => line.cut === held), { timeout: 2000, interval: 10 }).toBe(true)
  expect(performance.now() - since).toBeLessThan(1000)
  const next = await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })
  expect(next.body.result?.task.status.state).toMatch(/SUBMITTED|WORKING/)
})

it('SubscribeToTask on B follows a run on A update by update, in order, also across cut listening connections', { timeout: 60_000 }, async () => {
  // Streams read the store on a timer only once a minute: what B sends within the test, notes woke it for.
  const { a, b, token } = await twoReplicas({ TICKS: '40', TICK_MS: '60', STREAM_POLL_MS: '60000' })
  await expect.poll(listening, { timeout: 10_000 }).toBe(2)
  const id = (await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })).body.result.task.id as string
  const stream = await subscribe(b, token, id)
  await stream.next()
  // Mid-run, both replicas' LISTEN connections are terminated (the pools' are left alone, so A's run goes on as it would).
  await new Promise((resolve) => setTimeout(resolve, 900))
  const cut = await database!.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'a2a task notifications'`,
  )
  expect(cut[0]!.n).toBe(2)
  await expect.poll(listening, { timeout: 10_000 }).toBe(2)
  const seen = statuses(await stream.ended)
  expect(seen.at(-1)).toMatchObject({ state: 'TASK_STATE_COMPLETED' })
  // The snapshot, then every later version (40 updates and the completion: versions 2 to 42) as
  // its own event, none skipped nor folded into a snapshot: the ones written while the
  // connections were down too (read from the store's kept events once B heard again).
  const events = await stream.ended
  const versions = events.map((event) => Number(event.id))
  expect(versions).toEqual(Array.from({ length: 43 - versions[0]! }, (_, i) => versions[0]! + i))
  expect(events.slice(1).every((event) => event.data.result.statusUpdate)).toBe(true)
  const ticks = seen.slice(1, -1).map((status) => Number(status.message.parts[0].text))
  expect(ticks).toEqual([...ticks].sort((x, y) => x - y))
})

it("while no connection can listen, B follows A's run by reading the store every streamPollMs, missing nothing, and listens again after", { timeout: 60_000 }, async () => {
  const { a, b, token } = await twoReplicas({ TICKS: '40', TICK_MS: '60', STREAM_POLL_MS: '100' })
  await expect.poll(listening, { timeout: 10_000 }).toBe(2)
  const id = (await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })).body.result.task.id as string
  const stream = await subscribe(b, token, id)
  await stream.next()
  await new Promise((resolve) => setTimeout(resolve, 500))
  // No new connection to the database is let in (the pools keep theirs), and the listening ones are cut.
  const name = new URL(database!.url).pathname.slice(1)
  await onServer(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`)
  try {
    await database!.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'a2a task notifications'`)
    await expect.poll(listening).toBe(0)
    const before = stream.events.length
    await new Promise((resolve) => setTimeout(resolve, 1000))
    // Updates kept arriving, read on B's timer.
    expect(stream.events.length - before).toBeGreaterThanOrEqual(5)
    expect(await listening()).toBe(0)
  } finally {
    await onServer(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)
  }
  await expect.poll(listening, { timeout: 10_000 }).toBe(2)
  const events = await stream.ended
  const versions = events.map((event) => Number(event.id))
  expect(versions).toEqual(Array.from({ length: 43 - versions[0]! }, (_, i) => versions[0]! + i))
  expect(events.slice(1).every((event) => event.data.result.statusUpdate)).toBe(true)
  expect(statuses(events).at(-1)).toMatchObject({ state: 'TASK_STATE_COMPLETED' })
})

it('a task paused on A and resumed on B is followed on A to its end, every update in order', { timeout: 60_000 }, async () => {
  const { a, b, token } = await twoReplicas({ STREAM_POLL_MS: '60000' })
  await expect.poll(listening, { timeout: 10_000 }).toBe(2)
  const asked = (await rpc(a, token, 'SendMessage', message('ask'))).body.result.task
  expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
  const stream = await subscribe(a, token, asked.id)
  expect((await stream.next())?.data.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
  const answer = await rpc(b, token, 'SendMessage', { message: { messageId: `answer-${asked.id}`, role: 'ROLE_USER', parts: [{ text: 'Ada' }], taskId: asked.id } })
  expect(answer.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  // The resume's WORKING, B's three updates and its completion, each as itself, in order.
  const seen = statuses(await stream.ended).slice(1)
  expect(seen.map((status) => `${status.state} ${status.message?.parts[0].text ?? ''}`.trim())).toEqual([
    'TASK_STATE_WORKING',
    'TASK_STATE_WORKING one b',
    'TASK_STATE_WORKING two b',
    'TASK_STATE_WORKING three b',
    'TASK_STATE_COMPLETED hello Ada',
  ])
})
