/**
 * Two replicas on one PostgreSQL database hear each other's task writes through LISTEN/NOTIFY
 * (cancel.test.ts cancels across them): SubscribeToTask on B to A's run gets every update in
 * order, also after the listening connections were terminated (they reconnect, and polling
 * bridges the gap), and while no connection can listen at all; and a task paused on A and resumed
 * on B is followed on A to its end.
 */
import { expect, it } from 'vitest'
import { listeners, message, onServer, replicaPairs, rpc, statuses, subscribe } from './harness.js'

const pair = replicaPairs('postgres')
const listening = () => listeners(pair.database)

it('SubscribeToTask on B follows a run on A update by update, in order, also across cut listening connections', { timeout: 60_000 }, async () => {
  // Streams read the store on a timer only once a minute: what B sends within the test, notes woke it for.
  const { a, b, token } = await pair.start({ TICKS: '40', TICK_MS: '60', STREAM_POLL_MS: '60000' })
  const id = (await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })).body.result.task.id as string
  const stream = await subscribe(b, token, id)
  await stream.next()
  // Mid-run, both replicas' LISTEN connections are terminated (the pools' are left alone, so A's run goes on as it would).
  await new Promise((resolve) => setTimeout(resolve, 900))
  const cut = await pair.database.query<{ n: number }>(
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
  const { a, b, token } = await pair.start({ TICKS: '40', TICK_MS: '60', STREAM_POLL_MS: '100' })
  const id = (await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })).body.result.task.id as string
  const stream = await subscribe(b, token, id)
  await stream.next()
  await new Promise((resolve) => setTimeout(resolve, 500))
  // No new connection to the database is let in (the pools keep theirs), and the listening ones are cut.
  const name = new URL(pair.database.url).pathname.slice(1)
  await onServer(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`)
  try {
    await pair.database.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'a2a task notifications'`)
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
  const { a, b, token } = await pair.start({ STREAM_POLL_MS: '60000' })
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
