/**
 * A bench server in a child process of its own, so the load generator does not compete for its
 * event loop: spawned under tsx, ready once it prints `{"port":N}`, stopped with SIGTERM (then
 * SIGKILL). BENCH_SERVER_ARGS adds node flags to every server, e.g. "--cpu-prof".
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process'
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

/** Spawns the server script `file`; `name` marks its errors and everything else it prints. */
export async function spawnServer(name: string, file: string, options: SpawnOptions): Promise<ServerProcess> {
  const extra = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...extra, ...(options.nodeArgs ?? []), '--import', 'tsx', file], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env, NODE_ENV: 'production' },
  })
  const lines = createInterface({ input: child.stdout! })
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} server printed no port within 30 s`)), 30_000)
    child.once('exit', (code) => reject(new Error(`${name} server exited early with code ${code}`)))
    lines.once('line', (line) => {
      clearTimeout(timer)
      try {
        resolve((JSON.parse(line) as { port: number }).port)
      } catch {
        reject(new Error(`${name} server printed ${JSON.stringify(line)} instead of {"port":N}`))
      }
    })
  }).catch((error: unknown) => {
    child.kill('SIGKILL')
    throw error
  })
  // Anything else a server prints is passed through, marked with its name.
  lines.on('line', (line) => console.error(`[${name}] ${line}`))
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
