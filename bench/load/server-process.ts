/**
 * A bench server in a child process of its own, so the load generator does not compete for its
 * event loop: spawned under tsx, ready once it prints `{"port":N}`, stopped with SIGTERM (then
 * SIGKILL). BENCH_SERVER_ARGS adds node flags to every server, e.g. "--cpu-prof" or "--trace-gc"
 * (what a server prints before its port line is passed through, marked with its name).
 *
 * BENCH_RUNTIME=dist runs our servers on the runtime's built package (dist/, built once by
 * the first {@link spawnServer}), as generated apps import it; `source` (the default of each
 * bench:* script) runs its TypeScript source through tsx, whose keepNames wraps every closure the
 * runtime makes per request and whose transforms stay in memory. `npm run bench` sets dist; the
 * first server spawned builds it.
 * @module
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'

export interface ServerProcess {
  child: ChildProcess
  port: number
}

export interface SpawnOptions {
  cwd: string
  env?: Record<string, string>
  /** Node flags before the script, after BENCH_SERVER_ARGS. */
  nodeArgs?: string[]
}

const SOURCE_CONDITION = '--conditions=@a2a-agent/source'

/** Where our servers take the runtime from: `source` or `dist` (BENCH_RUNTIME). */
export const runtimeFrom: 'source' | 'dist' = (() => {
  const value = process.env.BENCH_RUNTIME || 'source'
  if (value !== 'source' && value !== 'dist') throw new Error(`BENCH_RUNTIME must be source or dist, got ${JSON.stringify(value)}`)
  return value
})()

let built = false
/** Builds the runtime package once per bench process when the servers run on dist. */
function buildRuntimeForBench(root: string): void {
  if (runtimeFrom !== 'dist' || built) return
  console.log('bench: building the runtime (BENCH_RUNTIME=dist)')
  execFileSync('npm', ['run', 'build', '--silent', '-w', 'packages/runtime'], { cwd: root, stdio: 'inherit' })
  built = true
}

/** The environment a server starts with: without the source condition when it runs on dist. */
const runtimeEnv = (): Record<string, string> => (runtimeFrom === 'dist' ? { NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace(SOURCE_CONDITION, '').trim() } : {})

/** Spawns the server script `file`; `name` marks its errors and everything else it prints. */
export async function spawnServer(name: string, file: string, options: SpawnOptions): Promise<ServerProcess> {
  buildRuntimeForBench(options.cwd)
  const extra = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...extra, ...(options.nodeArgs ?? []), '--import', 'tsx', file], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...runtimeEnv(), ...options.env, NODE_ENV: 'production' },
  })
  const lines = createInterface({ input: child.stdout! })
  // Anything a server prints but its port line is passed through, marked with its name.
  const passThrough = (line: string) => console.error(`[${name}] ${line}`)
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} server printed no port within 30 s`)), 30_000)
    child.once('exit', (code) => reject(new Error(`${name} server exited early with code ${code}`)))
    const onLine = (line: string) => {
      if (!line.startsWith('{')) return passThrough(line)
      lines.off('line', onLine)
      clearTimeout(timer)
      try {
        resolve((JSON.parse(line) as { port: number }).port)
      } catch {
        reject(new Error(`${name} server printed ${JSON.stringify(line)} instead of {"port":N}`))
      }
    }
    lines.on('line', onLine)
  }).catch((error: unknown) => {
    child.kill('SIGKILL')
    throw error
  })
  lines.on('line', passThrough)
  return { child, port }
}

/** SIGTERM, then SIGKILL after `graceMs` (a profiled server needs a moment to write its profile). */
export async function stopProcess(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}
