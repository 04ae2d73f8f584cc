/**
 * Several replicas on one PostgreSQL database act as one agent: the same message sent at once to
 * two replicas makes one task, run once; the per-owner run cap counts the runs of every replica;
 * and with three replicas, one killed with SIGKILL mid-run, every task settles, none is lost and
 * none runs twice (each run inserts a row in the database: its side effect, counted there); a
 * replica killed while a new task's claim is held leaves nothing of it.
 */
import { afterEach, expect, it } from 'vitest'
import { createDatabase, message, rpc, startReplica, stopReplicas, type Replica, type TestDatabase } from './harness.js'

let database: TestDatabase | undefined
afterEach(async () => {
  await stopReplicas()
  await database?.drop()
  database = undefined
})

const RUN_TABLE = 'test_runs'

/** A fresh database with the table each `slow` run inserts its row in, and replicas on it. */
async function replicas(names: string[], env: Record<string, string>) {
  database = await createDatabase('postgres')
  await database.query(`CREATE TABLE "${RUN_TABLE}" ("taskId" TEXT NOT NULL, "replica" TEXT NOT NULL)`)
  const started = await Promise.all(names.map((name) => startReplica(name, database!, { RUN_TABLE, ...env })))
  return { replicas: started, token: database.tokens.alice }
}

const runsOf = async () =>
  Object.fromEntries(
    (await database!.query<{ taskId: string; n: number }>(`SELECT "taskId", count(*)::int AS n FROM "${RUN_TABLE}" GROUP BY "taskId"`)).map((row) => [row.taskId, row.n]),
  )

const stateOn = async (replica: Replica, token: string, id: string) => (await rpc(replica, token, 'GetTask', { id })).body.result?.status.state as string | undefined

it('the same message sent at once to two replicas makes one task, run once, both answers its end; a different one under its messageId makes another', {
  timeout: 60_000,
}, async () => {
  const {
    replicas: [a, b],
    token,
  } = await replicas(['a', 'b'], { SLOW_MS: '200' })
  const ids: string[] = []
  for (let round = 0; round < 10; round++) {
    const sent = message('slow', `round ${round}`)
    const [onA, onB] = await Promise.all([rpc(a!, token, 'SendMessage', sent), rpc(b!, token, 'SendMessage', sent)])
    expect(onA.body.result?.task.id, JSON.stringify([onA.body, onB.body])).toBe(onB.body.result?.task.id)
    // Both blocking answers wait for the one run, wherever it is, and carry its end.
    expect([onA.body.result.task.status.state, onB.body.result.task.status.state]).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED'])
    ids.push(onA.body.result.task.id)
  }
  await expect.poll(async () => Promise.all(ids.map((id) => stateOn(a!, token, id))), { timeout: 10_000 }).toEqual(ids.map(() => 'TASK_STATE_COMPLETED'))
  expect(await runsOf()).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
  expect((await database!.query(`SELECT 1 FROM "A2ATask"`)).length).toBe(10)

  // The existing rule holds across replicas too: other parts under a reused messageId run as a new message.
  const first = message('slow', 'first')
  const made = (await rpc(a!, token, 'SendMessage', first)).body.result.task.id
  const other = (await rpc(b!, token, 'SendMessage', { message: { ...first.message, parts: [{ text: 'second' }] } })).body.result.task
  expect(other.id).not.toBe(made)
  expect((await rpc(b!, token, 'SendMessage', first)).body.result.task.id).toBe(made)
})

it('recognises a message sent at once to two replicas before either takes a run slot: 20 identical pairs at once under a cap of 16, never one side refused', {
  timeout: 90_000,
}, async () => {
  // Runs outlast a round, so no slot frees while one is sent: a pair's two sides must agree.
  const {
    replicas: [a, b],
    token,
  } = await replicas(['a', 'b'], { SLOW_MS: '1500', MAX_RUNS: '16' })
  const split: string[] = []
  let answered = 0
  for (let round = 0; round < 5; round++) {
    const pairs = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const sent = message('slow', `round ${round} pair ${i}`)
        return Promise.all([rpc(a!, token, 'SendMessage', sent), rpc(b!, token, 'SendMessage', sent)])
      }),
    )
    for (const [onA, onB] of pairs) {
      const [taskA, taskB] = [onA.body.result?.task.id, onB.body.result?.task.id]
      if (taskA !== taskB) split.push(JSON.stringify([onA.body.result?.task.id ?? onA.body.error, onB.body.result?.task.id ?? onB.body.error]).slice(0, 300))
      else if (taskA) answered++
    }
  }
  expect(split.slice(0, 5), `${split.length} of 100 pairs split`).toEqual([])
  // The cap still holds: at most 16 runs a round.
  expect(answered).toBeGreaterThan(0)
  expect(answered).toBeLessThanOrEqual(5 * 16)
  expect(Object.values(await runsOf()).every((n) => n === 1)).toBe(true)
})

it("a replica killed between a new task's claim and its insert leaves neither: the message runs when sent again", { timeout: 60_000 }, async () => {
  database = await createDatabase('postgres')
  const token = database.tokens.alice
  // a's handler computes for a minute in its first turn, holding the task's claim open that long.
  const [a, b] = await Promise.all([startReplica('a', database, { SPIN_MS: '60000' }), startReplica('b', database, { SPIN_MS: '0' })])
  const heldClaims = async () =>
    (
      await database!.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND starts_with(query, 'INSERT INTO "A2ATaskMessage"')`,
      )
    )[0]!.n
  const sent = message('spin')
  const lost = rpc(a, token, 'SendMessage', sent).catch((error: unknown) => error)
  await expect.poll(heldClaims, { timeout: 10_000 }).toBe(1)
  await a.kill9()
  await lost
  // The server rolled the claim back with the dead connection: nothing of the message is stored.
  await expect.poll(heldClaims, { timeout: 10_000 }).toBe(0)
  expect(await database.query(`SELECT 1 FROM "A2ATaskMessage"`)).toEqual([])
  expect(await database.query(`SELECT 1 FROM "A2ATask"`)).toEqual([])
  const again = await rpc(b, token, 'SendMessage', sent)
  expect(again.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
})

it('counts the per-owner run cap over every replica: 2 of 6 concurrent sends run, and a cancel elsewhere frees a place', { timeout: 60_000 }, async () => {
  const {
    replicas: [a, b],
    token,
  } = await replicas(['a', 'b'], { MAX_RUNS: '2' })
  const hold = (replica: Replica) => rpc(replica, token, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })
  const replies = await Promise.all([a, b, a, b, a, b].map((replica) => hold(replica!)))
  const accepted = replies.filter((reply) => reply.body.result).map((reply) => reply.body.result.task.id as string)
  expect(accepted).toHaveLength(2)
  expect(replies.filter((reply) => reply.body.error?.code === -32004)).toHaveLength(4)
  // bob has places of his own.
  expect((await rpc(a!, database!.tokens.bob, 'SendMessage', { ...message('hold'), configuration: { returnImmediately: true } })).body.result).toBeDefined()
  expect((await hold(a!)).body.error?.code).toBe(-32004)

  // Canceled on the replica that does not run it: the run is cut where it runs, and its place freed.
  const running = await database!.query<{ id: string; runner: string }>(`SELECT "id", "runner" FROM "A2ATask" WHERE "id" = $1`, [accepted[0]])
  const elsewhere = running[0]!.runner === 'a' ? b! : a!
  expect((await rpc(elsewhere, token, 'CancelTask', { id: accepted[0] })).body.result.status.state).toBe('TASK_STATE_CANCELED')
  await expect.poll(async () => (await hold(elsewhere)).body.result?.task.id, { timeout: 5000, interval: 100 }).toBeDefined()
  expect((await hold(a!)).body.error?.code).toBe(-32004)
})

it('three replicas, one killed with SIGKILL mid-run: every task settles, none is lost, none runs twice', { timeout: 90_000 }, async () => {
  const LEASE_MS = 3000
  const {
    replicas: [a, b, c],
    token,
  } = await replicas(['a', 'b', 'c'], { SLOW_MS: '2500', RUN_LEASE_MS: String(LEASE_MS) })
  const sent = await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const replica = [a, b, c][i % 3]!
      const reply = await rpc(replica, token, 'SendMessage', { ...message('slow'), configuration: { returnImmediately: true } })
      return { id: reply.body.result.task.id as string, on: replica.name }
    }),
  )
  // Every run has begun (its row is in the database) when b is killed.
  await expect.poll(async () => Object.keys(await runsOf()).length, { timeout: 10_000 }).toBe(30)
  await b!.kill9()

  const ids = sent.map((task) => task.id)
  const states = () => Promise.all(ids.map((id) => stateOn(a!, token, id)))
  await expect.poll(async () => (await states()).every((state) => state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_FAILED'), { timeout: 20_000, interval: 200 }).toBe(true)
  const settled = await states()
  sent.forEach((task, i) => expect(settled[i], `${task.on}'s task`).toBe(task.on === 'b' ? 'TASK_STATE_FAILED' : 'TASK_STATE_COMPLETED'))
  // Each ran exactly once, on the replica it was sent to.
  expect(await runsOf()).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
  const ranOn = await database!.query<{ taskId: string; replica: string }>(`SELECT "taskId", "replica" FROM "${RUN_TABLE}"`)
  expect(Object.fromEntries(ranOn.map((row) => [row.taskId, row.replica]))).toEqual(Object.fromEntries(sent.map((task) => [task.id, task.on])))
  // None lost: all 30 readable from c too, and no run is left leased.
  expect((await Promise.all(ids.map((id) => stateOn(c!, token, id)))).filter(Boolean)).toHaveLength(30)
  expect(await database!.query(`SELECT 1 FROM "A2ATask" WHERE "runner" IS NOT NULL AND "statusState" IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`)).toEqual([])
})
