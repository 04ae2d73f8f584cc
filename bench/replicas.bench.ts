/**
 * Cross-replica subscribe latency: replicas of test/replicas/agent.ts on a fresh PostgreSQL
 * database, then on a fresh MariaDB one (MysqlStore, whose B hears A's writes by its change feed,
 * polled every 25 ms, as MySQL has no LISTEN/NOTIFY); a `tick` task started on A (PostgresStore) writes a status update every 100 ms saying
 * when it was written, and SubscribeToTask followers measure written-on-A → received, p50/p99: on
 * B (another process, PostgresStore: woken by LISTEN/NOTIFY, the event read from the store), on
 * C (another process on PrismaStore, which has no notifications: it reads the store every
 * streamPollMs, 200 ms in the agent, as every replica did before) and on A (the same process:
 * in-process events). Then blocking SendMessage round trips, interleaved, on A (no run cap) and on
 * D (maxConcurrentRunsPerOwner 16, counted for the whole agent in A2ALimitEntry): the cap's cost per send.
 *
 *   npm run bench:replicas            # BENCH_TASKS (default 10) tick tasks of 20 updates each
 */
import { loadavg } from 'node:os'
import { openSse } from '@a2a-agent/runtime/testing'
import { createDatabase, message, rpc, startReplica, stopReplicas, type Kind, type Replica } from '../test/replicas/harness.js'
import { positiveInt } from './load/env.js'

const tasks = positiveInt('BENCH_TASKS', 10)
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN

async function measure(kind: Kind, label: string, heard: string): Promise<void> {
  const database = await createDatabase(kind)
  try {
    const [a, b, c, d] = await Promise.all([
      startReplica('a', database),
      startReplica('b', database),
      startReplica('c', database, { STORE: 'prisma' }),
      startReplica('d', database, { MAX_RUNS: '16' }),
    ])
    const token = database.tokens.alice
    const latencies: Record<string, number[]> = { [heard]: [], 'A → C (other process, polling)': [], 'A → A (same process)': [] }
    const follow = async (replica: Replica, id: string, into: number[]) => {
      const stream = await openSse(`${replica.base}/a2a`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }), {
        'A2A-Version': '1.0',
        Authorization: `Bearer ${token}`,
      })
      const seen = new Set<string>()
      for (let event = await stream.next(); event; event = await stream.next()) {
        const status = event.data.result?.statusUpdate?.status ?? event.data.result?.task?.status
        const written = Number(status?.message?.parts?.[0]?.text)
        if (status?.state === 'TASK_STATE_WORKING' && Number.isFinite(written) && !seen.has(String(written))) {
          seen.add(String(written))
          into.push(Date.now() - written)
        }
      }
    }
    for (let i = 0; i < tasks; i++) {
      const sent = await rpc(a, token, 'SendMessage', { ...message('tick'), configuration: { returnImmediately: true } })
      const id = sent.body.result.task.id as string
      await Promise.all([follow(b, id, latencies[heard]!), follow(c, id, latencies['A → C (other process, polling)']!), follow(a, id, latencies['A → A (same process)']!)])
    }
    const sends: Record<string, number[]> = { 'on A (no run cap)': [], 'on D (run cap, agent-wide)': [] }
    for (let i = 0; i < 200; i++) {
      for (const [replica, into] of [
        [a, sends['on A (no run cap)']!],
        [d, sends['on D (run cap, agent-wide)']!],
      ] as const) {
        const started = performance.now()
        await rpc(replica, token, 'SendMessage', message('done'))
        into.push(performance.now() - started)
      }
    }
    console.log(
      `\nReplicas on ${label}, ${tasks} tasks × 20 status updates written on A; load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    )
    for (const [name, values] of Object.entries(latencies)) {
      console.log(
        `  subscribe latency ${name.padEnd(34)} p50 ${percentile(values, 50).toFixed(0).padStart(4)} ms  p99 ${percentile(values, 99).toFixed(0).padStart(4)} ms  (${values.length} events)`,
      )
    }
    for (const [name, values] of Object.entries(sends)) {
      console.log(`  SendMessage (blocking, one at a time) ${name.padEnd(28)} p50 ${percentile(values, 50).toFixed(1)} ms  p99 ${percentile(values, 99).toFixed(1)} ms`)
    }
  } finally {
    await stopReplicas()
    await database.drop()
  }
}

await measure('postgres', 'PostgreSQL', 'A → B (other process, notified)')
await measure('mysql', 'MariaDB', 'A → B (other process, change feed)')
