/**
 * wrk (Debian's `wrk` package) as the load generator when it is installed: written in C, it costs
 * the shared two cores far less than autocannon, so the numbers describe the server, not the client.
 * @module
 */
import { execFile, execFileSync, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const execFileAsync = promisify(execFile)

export interface WrkResult {
  rps: number
  p50: number
  p99: number
  requests: number
  /** Non-2xx responses plus socket errors. */
  errors: number
}

export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined
}

/**
 * A Lua script that POSTs SendMessage with a fresh messageId per request (an idempotency key): a
 * JSON-RPC request, or on HTTP+JSON (`rest`) the bare SendMessageRequest.
 */
function script(headers: Record<string, string>, rest: boolean): string {
  const headerLines = Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
  const message = `'{"messageId":"wrk-' .. run .. '-' .. n .. '","role":"ROLE_USER","parts":[{"text":"hello"}]}'`
  const body = rest ? `'{"message":' .. ${message} .. '}'` : `'{"jsonrpc":"2.0","id":' .. n .. ',"method":"SendMessage","params":{"message":' .. ${message} .. '}}'`
  return `
wrk.method = "POST"
${headerLines.join('\n')}
local n = 0
local run = tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
request = function()
  n = n + 1
  local body = ${body}
  return wrk.format(nil, nil, nil, body)
end
`
}

const toMs = (value: string, unit: string): number => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1)

export function runWrk(url: string, headers: Record<string, string>, connections: number, seconds: number, rest = false): WrkResult {
  return runWrkScript(url, script(headers, rest), connections, seconds)
}

/**
 * POSTs the same `body` on every request (a read such as GetTask, which needs no fresh key); a
 * 200 that does not carry a COMPLETED task, or carries an error, counts as a bad response.
 */
export function runWrkBody(url: string, headers: Record<string, string>, body: string, connections: number, seconds: number): WrkResult {
  const headerLines = Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
  return runWrkScript(
    url,
    `wrk.method = "POST"
wrk.body = ${JSON.stringify(body)}
${headerLines.join('\n')}
${countBadResponses(`status == 200 and (not string.find(body, '"TASK_STATE_COMPLETED"', 1, true) or string.find(body, '"error":', 1, true))`)}
`,
    connections,
    seconds,
  )
}

/**
 * Lua that counts the answers for which `badWhen` (a Lua expression of `status` and `body`) holds
 * and prints `Bad responses: N` at the end, which runWrkScript adds to `errors`.
 */
export function countBadResponses(badWhen: string): string {
  return `bad = 0
response = function(status, headers, body)
  if ${badWhen} then
    bad = bad + 1
  end
end
-- done runs in the main Lua state: each thread's count is read from it.
local threads = {}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + (thread:get("bad") or 0) end
  io.write("Bad responses: " .. total .. "\\n")
end`
}

/**
 * Runs wrk with a Lua script of the caller's. A script may print `Bad responses: N` from its
 * `done` hook (2xx answers it judged wrong, e.g. a JSON-RPC error); they are added to `errors`.
 * Bounded: wrk is killed if it runs 30 s past its duration. `timeoutSeconds`: wrk's per-request
 * timeout (its default is 2 s; a request slower than that counts as an error).
 */
export function runWrkScript(url: string, lua: string, connections: number, seconds: number, timeoutSeconds?: number): WrkResult {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'))
  try {
    writeFileSync(join(dir, 'load.lua'), lua)
    return parse(
      execFileSync('wrk', wrkArgs(url, join(dir, 'load.lua'), connections, seconds, timeoutSeconds), { encoding: 'utf8', timeout: (seconds + 30) * 1000, killSignal: 'SIGKILL' }),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * {@link runWrkScript} without blocking the event loop, so the caller's signal handlers and
 * watchdog still run while wrk does (a signal that arrives during execFileSync is lost).
 */
export async function runWrkScriptAsync(url: string, lua: string, connections: number, seconds: number, timeoutSeconds?: number): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'))
  try {
    writeFileSync(join(dir, 'load.lua'), lua)
    const run = execFileAsync('wrk', wrkArgs(url, join(dir, 'load.lua'), connections, seconds, timeoutSeconds), {
      encoding: 'utf8',
      timeout: (seconds + 30) * 1000,
      killSignal: 'SIGKILL',
    })
    running.add(run.child)
    try {
      return parse((await run).stdout)
    } finally {
      running.delete(run.child)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const running = new Set<ChildProcess>()

/** Kills the wrk processes {@link runWrkScriptAsync} has running (for a bench's exit path). */
export function killWrk(): void {
  for (const child of running) child.kill('SIGKILL')
}

function wrkArgs(url: string, script: string, connections: number, seconds: number, timeoutSeconds: number | undefined): string[] {
  const timeout = timeoutSeconds === undefined ? [] : ['--timeout', `${timeoutSeconds}s`]
  return ['-t1', `-c${connections}`, `-d${seconds}s`, ...timeout, '--latency', '-s', script, url]
}

function parse(out: string): WrkResult {
  const latency = (pct: string) => {
    const match = new RegExp(`\\s${pct}%\\s+([\\d.]+)(us|ms|s)`).exec(out)
    return match ? toMs(match[1]!, match[2]!) : Number.NaN
  }
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
  const bad = Number(/Bad responses: (\d+)/.exec(out)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), p50: latency('50'), p99: latency('99'), requests, errors: non2xx + bad + socketErrors }
}
