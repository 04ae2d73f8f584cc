/**
 * Idle RSS: the bench servers (ours on the runtime root, the official SDK's) once listening,
 * before any request. Each round starts both afresh, alternating which goes first; the median of
 * the rounds is printed, ours beside the SDK's. Goal: ours within 10 MiB of the SDK's.
 *
 *   npm run bench:idle-rss                 # 5 rounds (one round moves by up to 7 MiB)
 *   BENCH_ROUNDS=9 npm run bench:idle-rss
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { positiveInt, procStatusBytes } from './load/env.js'
import { runtimeFrom, spawnServer, stopProcess } from './load/server-process.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const rounds = positiveInt('BENCH_ROUNDS', 5)
const MiB = 1024 * 1024
const GOAL_MIB = 10
// Long enough for start-up work queued behind listen (timers, lazy compiles) to settle.
const SETTLE_MS = 1000

async function idleRss(name: string, file: string): Promise<number> {
  const { child } = await spawnServer(name, fileURLToPath(new URL(`./servers/${file}`, import.meta.url)), { cwd: root })
  try {
    await sleep(SETTLE_MS)
    const rss = procStatusBytes(child.pid, 'VmRSS')
    if (rss === undefined) throw new Error('idle RSS needs /proc/<pid>/status (Linux)')
    return rss
  } finally {
    await stopProcess(child)
  }
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!

const servers = [
  { name: 'ours', file: 'ours.ts' },
  { name: 'sdk', file: 'sdk.ts' },
]
const samples = new Map(servers.map(({ name }) => [name, [] as number[]]))
for (let round = 0; round < rounds; round++) {
  for (const { name, file } of round % 2 === 0 ? servers : servers.toReversed()) samples.get(name)!.push(await idleRss(name, file))
}
const ours = median(samples.get('ours')!) / MiB
const sdk = median(samples.get('sdk')!) / MiB
console.log(`idle RSS (median of ${rounds} rounds; runtime from ${runtimeFrom}): ours ${ours.toFixed(1)} MiB, sdk ${sdk.toFixed(1)} MiB`)
console.log(
  `  rounds (MiB): ${servers
    .map(
      ({ name }) =>
        `${name} ${samples
          .get(name)!
          .map((bytes) => (bytes / MiB).toFixed(1))
          .join(', ')}`,
    )
    .join('; ')}`,
)
console.log(`  ours − sdk: ${(ours - sdk).toFixed(1)} MiB (goal ≤ ${GOAL_MIB} MiB) ${ours - sdk <= GOAL_MIB ? 'met' : 'NOT met'}`)
