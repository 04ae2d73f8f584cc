/**
 * Connection loss never takes the process down, and every answer under it is one a client can act
 * on: sustained SendMessage, GetTask and entity writes against two replicas, each an agent behind
 * a multi-agent host served by a2aListener as examples/invoices serves its agents, with a run cap
 * (PostgresStore, and PrismaStore through @prisma/adapter-pg), while every backend of the test's
 * own database is terminated every 500 ms for 30 s (STORM_MS). On MariaDB the same with two
 * MysqlStore replicas and no entity writes (its test database has the A2A tables only), every
 * connection to the database killed (KILL CONNECTION) as often. No process exits, no request gets a
 * 5xx other than 503 with Retry-After, none gets -32603, no request to either replica hangs, every
 * write that was acknowledged is readable afterwards, and no run slot is left counted.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase, message, rpc, startReplica, stopReplicas, type Kind, type Replica, type TestDatabase } from './harness.js'

const STORM_MS = Number(process.env.STORM_MS ?? 30_000)
const CUT_EVERY_MS = 500

describe.each<Kind>(['postgres', 'mysql'])('%s connections cut under load', (kind) => {
  let database: TestDatabase
  afterAll(async () => {
    await stopReplicas()
    await database?.drop()
  })

  it('0 process exits, 0 5xx but 503 with Retry-After, 0 -32603, every acknowledged write readable after, 0 run slots held', { timeout: STORM_MS + 150_000 }, async () => {
    database = await createDatabase(kind)
    // As examples/invoices serves its agents: behind a multi-agent host, from a2aListener; each with a run cap.
    const served = { HOST: '1', MAX_RUNS: '16' }
    const second = kind === 'postgres' ? { STORE: 'prisma', ...served } : served
    const replicas = await Promise.all([startReplica('direct', database, served), startReplica(kind === 'postgres' ? 'prisma' : 'direct-b', database, second)])
    // The entity tools are examples/invoices', whose tables the MariaDB database lacks.
    const entities = kind === 'postgres'
    const exits: string[] = []
    for (const replica of replicas) void replica.exited.then((code) => exits.push(`${replica.name} exited: ${code}: ${replica.stderr.slice(-40, -14).join('\n')}`))
    const token = database.tokens.alice
    const statuses = new Map<string, number>()
    const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1)
    const acknowledged: { tasks: string[]; customers: string[] } = { tasks: [], customers: [] }
    const failures: string[] = []

    const call = async (replica: Replica, method: string, params: unknown) => {
      try {
        const reply = await rpc(replica, token, method, params)
        count(`${method} ${reply.status}${reply.body?.error ? ` ${reply.body.error.code}` : ''}`)
        if (reply.status >= 500 && reply.status !== 503) failures.push(`${method} on ${replica.name}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`)
        if (reply.status === 503 && !reply.headers.get('retry-after')) failures.push(`${method} on ${replica.name}: 503 without Retry-After`)
        // A 503's body says when to retry (-31503, retryAfter in its data); -32603 says nothing a client can act on.
        if (reply.body?.error?.code === -32603) {
          // With what the replica logged of it: the failure it answered for.
          const logged = replica.stderr.filter((line) => line.includes(`request ${reply.body.id}:`)).join(' ')
          failures.push(`${method} on ${replica.name}: HTTP ${reply.status} -32603 ${JSON.stringify(reply.body.error).slice(0, 200)} ${logged.slice(0, 600)}`)
        }
        return reply.status === 200 ? reply.body.result : undefined
      } catch (error) {
        // A request that waits out rpc's 20 s fails too, on PrismaStore as well: guardPool reclaims
        // a connection Prisma's transaction path keeps after the server cut it.
        failures.push(`${method} on ${replica.name}: ${(error as Error).message}`)
        return undefined
      }
    }

    let storming = true
    const storm = (async () => {
      let cuts = 0
      while (storming) {
        cuts += await database.cut().catch(() => 0)
        await new Promise((resolve) => setTimeout(resolve, CUT_EVERY_MS))
      }
      return cuts
    })()
    const worker = async (replica: Replica) => {
      while (storming) {
        const sent = await call(replica, 'SendMessage', message('done'))
        if (sent?.task?.status.state === 'TASK_STATE_COMPLETED') acknowledged.tasks.push(sent.task.id)
        const known = acknowledged.tasks[Math.floor(Math.random() * acknowledged.tasks.length)]
        if (known) await call(replica, 'GetTask', { id: known })
        if (!entities) continue
        const name = `customer-${randomBytes(6).toString('hex')}`
        const created = await call(replica, 'SendMessage', {
          message: { messageId: randomBytes(12).toString('hex'), role: 'ROLE_USER', parts: [{ data: { skill: 'entity.customers', operation: 'create', arguments: { name } } }] },
        })
        if (created?.task?.status.state === 'TASK_STATE_COMPLETED') acknowledged.customers.push(name)
      }
    }
    const workers = replicas.flatMap((replica) => [worker(replica), worker(replica), worker(replica)])
    await new Promise((resolve) => setTimeout(resolve, STORM_MS))
    storming = false
    const [cuts] = await Promise.all([storm, ...workers])

    expect(exits).toEqual([])
    expect(failures.slice(0, 10)).toEqual([])
    expect(cuts).toBeGreaterThan(STORM_MS / CUT_EVERY_MS)
    // The load went on through the storm (at least one acknowledged send a second, on a loaded machine).
    expect(acknowledged.tasks.length, JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(STORM_MS / 1000)
    if (entities) expect(acknowledged.customers.length).toBeGreaterThan(STORM_MS / 2000)
    // Recovered by itself: every acknowledged write (through either replica) is there, read through the PostgresStore replica.
    const read = await Promise.all(
      acknowledged.tasks.map(async (id) => {
        const reply = await rpc(replicas[0]!, token, 'GetTask', { id })
        return [id, reply.body?.result?.status.state ?? JSON.stringify(reply.body).slice(0, 200)]
      }),
    )
    expect(read.filter(([, state]) => state !== 'TASK_STATE_COMPLETED').slice(0, 5)).toEqual([])
    const names = new Set(entities ? (await database.query<{ name: string }>('SELECT "name" FROM "Customer"')).map((row) => row.name) : [])
    expect(acknowledged.customers.filter((name) => !names.has(name))).toEqual([])
    // Every run has ended: no slot counts any more, including those whose release met a cut connection.
    const slotsHeld = () =>
      database.query<{ n: number }>(`SELECT count(*) AS n FROM "A2ALimitEntry" WHERE "key" LIKE 'runs owner %' AND "id" <> ''`).then(([row]) => Number(row!.n))
    await expect.poll(slotsHeld, { timeout: 30_000, interval: 500 }).toBe(0)
    console.log(`connection storm on ${kind}: ${cuts} connections cut; answers ${JSON.stringify(Object.fromEntries(statuses))}`)
  })
})
