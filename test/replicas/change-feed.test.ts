/**
 * Two replicas on one MariaDB database hear each other's task writes through MysqlStore's change
 * feed (A2ATaskEvent read every 25 ms; MySQL has no LISTEN/NOTIFY), as notifications.test.ts
 * checks on PostgreSQL: SubscribeToTask on B to A's run gets every update in order, also after
 * every connection to the database was killed mid-run (cancel.test.ts cancels across them on both).
 */
import { expect, it } from 'vitest'
import { message, replicaPairs, rpc, statuses, subscribe } from './harness.js'

const pair = replicaPairs('mysql')

it('SubscribeToTask on B follows a run on A update by update, in order, also across killed connections', { timeout: 60_000 }, async () => {
  // Streams read the store on a timer only once a minute: what B sends within the test, the feed woke it for.
  const { a, b, token } = await pair.start({ TICKS: '40', TICK_MS: '60', STREAM_POLL_MS: '60000' })
  const id = (await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })).body.result.task.id as string
  const stream = await subscribe(b, token, id)
  await stream.next()
  // Mid-run, every connection to the database is killed: the feed's next read fails, listeners resync, and it reads on.
  await new Promise((resolve) => setTimeout(resolve, 900))
  expect(await pair.database.cut()).toBeGreaterThan(0)
  const events = await stream.ended
  const seen = statuses(events)
  expect(seen.at(-1)).toMatchObject({ state: 'TASK_STATE_COMPLETED' })
  // The snapshot, then every later version (40 updates and the completion) as its own event, none skipped.
  const versions = events.map((event) => Number(event.id))
  expect(versions).toEqual(Array.from({ length: versions.at(-1)! - versions[0]! + 1 }, (_, i) => versions[0]! + i))
  expect(versions.at(-1)).toBeGreaterThanOrEqual(41)
  const ticks = seen.slice(1, -1).map((status) => Number(status.message.parts[0].text))
  expect(ticks).toEqual([...ticks].sort((x, y) => x - y))
  expect(a.stderr.join('\n')).not.toMatch(/Unhandled|uncaught/i)
})
