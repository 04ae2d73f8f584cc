/**
 * A burst of SSE streams opened at once: every request is issued in one loop, each on its own
 * socket, and each stream's first-event latency is the time from its connect to the first `data:`
 * line reaching this process. The streams stay open until the server ends them; `settle()` waits
 * for that and counts the ones whose last event was COMPLETED.
 *
 * Node starts a socket's connect on the next tick, not in `connect()`: stamped in the loop, the
 * first streams would carry the loop's own time over the other 9,999 as server latency (a second
 * at 10,000, on raw node:http too). Each stream is stamped by a tick queued just before its
 * socket's, so it runs right before that socket's connect.
 *
 * Plain sockets with the request bytes written whole, and the answer only scanned as bytes
 * (status line, the first `data:`, the last chunk): node:http's client cost about as much CPU per
 * stream as the server under test, on the same cores, which is then the client's latency, not
 * the server's.
 * @module
 */
import { connect, type Socket } from 'node:net'

export interface BurstRequest {
  path: string
  headers: Record<string, string>
  body: string
}

export interface Burst {
  count: number
  /** Resolves once every stream has its first event or failed, or `idleMs` passes without either. */
  opened(idleMs: number): Promise<void>
  /** Resolves once every stream has ended, or `idleMs` passes without one ending. */
  settle(idleMs: number): Promise<void>
  /** First-event latencies of the streams that have one, ms, sorted. */
  firstEvents(): Float64Array
  /** TCP connect latencies, ms, sorted: a SYN dropped at a full accept queue shows as 1 s, 3 s, … */
  connects(): Float64Array
  failures: string[]
  ended: number
  completed: number
  close(): void
}

const HEAD_END = Buffer.from('\r\n\r\n')
const DATA = Buffer.from('data:')
const COMPLETED = Buffer.from('"TASK_STATE_COMPLETED"')
const STREAM_HEAD = /^HTTP\/1\.1 200[\s\S]*\r\ncontent-type: text\/event-stream/i
/** Enough of a stream's end to hold its last event. */
const TAIL = 4096

export function openBurst(port: number, count: number, requestFor: (i: number) => BurstRequest): Burst {
  const issued = new Float64Array(count)
  const first = new Float64Array(count).fill(Number.NaN)
  const connected = new Float64Array(count).fill(Number.NaN)
  const endedAt = new Uint8Array(count)
  const sockets: Socket[] = []
  let firsts = 0
  let progress: (() => void) | undefined
  const sorted = (values: Float64Array) => values.filter((value) => !Number.isNaN(value)).sort()
  const burst: Burst = {
    count,
    failures: [],
    ended: 0,
    completed: 0,
    opened: (idleMs) => waitFor(() => firsts + burst.failures.length >= count, idleMs),
    settle: (idleMs) => waitFor(() => burst.ended >= count, idleMs),
    firstEvents: () => sorted(first),
    connects: () => sorted(connected),
    close: () => sockets.forEach((socket) => socket.destroy()),
  }
  const end = (i: number, failure?: string) => {
    if (endedAt[i]) return
    endedAt[i] = 1
    burst.ended++
    if (failure) burst.failures.push(failure)
    progress?.()
  }
  function waitFor(done: () => boolean, idleMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(finish, idleMs)
      function finish() {
        clearTimeout(timer)
        progress = undefined
        resolve()
      }
      progress = () => (done() ? finish() : timer.refresh())
      progress()
    })
  }
  for (let i = 0; i < count; i++) {
    const { path, headers, body } = requestFor(i)
    const head = Object.entries({ ...headers, Host: `127.0.0.1:${port}`, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    process.nextTick(() => (issued[i] = performance.now()))
    const socket = connect({ host: '127.0.0.1', port })
    sockets.push(socket)
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`)
    socket.once('connect', () => (connected[i] = performance.now() - issued[i]!))
    let seen: Buffer = Buffer.alloc(0)
    let streaming: boolean | undefined
    socket.on('data', (chunk: Buffer) => {
      if (streaming === undefined) {
        seen = seen.length ? Buffer.concat([seen, chunk]) : chunk
        const headEnd = seen.indexOf(HEAD_END)
        if (headEnd === -1) return
        streaming = STREAM_HEAD.test(seen.toString('latin1', 0, headEnd))
        chunk = seen.subarray(headEnd + HEAD_END.length)
        if (streaming) seen = Buffer.alloc(0)
        else return
      }
      if (!streaming) {
        seen = Buffer.concat([seen, chunk])
        return
      }
      if (Number.isNaN(first[i]!) && chunk.includes(DATA)) {
        first[i] = performance.now() - issued[i]!
        firsts++
        progress?.()
      }
      // Only the end matters: the last event of a stream that completed names the state.
      const joined = seen.length ? Buffer.concat([seen, chunk]) : chunk
      seen = joined.length > TAIL ? joined.subarray(joined.length - TAIL) : joined
    })
    socket.on('error', (error) => end(i, `socket error: ${error.message}`))
    socket.on('close', () => {
      if (!streaming) return end(i, `not a stream: ${seen.toString('utf8', 0, 200).replace(/\r\n/g, ' ')}`)
      if (seen.includes(COMPLETED)) burst.completed++
      end(i, Number.isNaN(first[i]!) ? 'ended before its first event' : undefined)
    })
  }
  return burst
}
