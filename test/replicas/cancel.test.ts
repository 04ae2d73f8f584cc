/**
 * Two replicas on one database hear each other's task writes (PostgreSQL: LISTEN/NOTIFY; MySQL:
 * MysqlStore's change feed, as it has none): a cancel served by B cuts the handler running on A at
 * once (the handler never writes again) and frees its run slot.
 */
import { describe, expect, it } from 'vitest'
import { type Kind, message, replicaPairs, rpc } from './harness.js'

describe.each<Kind>(['postgres', 'mysql'])('on %s', (kind) => {
  const pair = replicaPairs(kind)

  it('a cancel served by B cuts the handler running on A at once and frees its run slot', { timeout: 60_000 }, async () => {
    const { a, b, token } = await pair.start({ MAX_RUNS: '1' })
    const held = (await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.result.task.id as string
    await expect.poll(async () => (await rpc(b, token, 'GetTask', { id: held })).body.result.status.state).toBe('TASK_STATE_WORKING')
    // A's one run slot for alice is taken, for the whole agent.
    expect((await rpc(b, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.error?.code).toBe(-32004)

    const since = performance.now()
    expect((await rpc(b, token, 'CancelTask', { id: held })).body.result.status.state).toBe('TASK_STATE_CANCELED')
    // `hold` never writes again: only B's write, heard on A, can reach it.
    await expect.poll(() => a.said.some((line) => line.cut === held), { timeout: 2000, interval: 10 }).toBe(true)
    expect(performance.now() - since).toBeLessThan(1000)
    const next = await rpc(a, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })
    expect(next.body.result?.task.status.state).toMatch(/SUBMITTED|WORKING/)
  })
})
