/**
 * A burst of SSE streams opened at once: every request is issued in one loop (as fast as this
 * process can), each on its own socket, and each stream's first-event latency is the time from
 * its own issue to the first `data:` line reaching this process. The streams stay open until the
 * server ends them; `settle()` waits for that and counts the ones whose last event was COMPLETED.
 *
 * Plain sockets with the request bytes written whole, and the answer only scanned (status line,
 * the first `data:`, the last chunk): node:http's client cost about as much CPU per stream as
 * the server under test, on the same cores, which is then the client's latency, not the server's.
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
  failures: string[]
  ended: number
  completed: number
  close(): void
}

export function openBurst(port: number, count: number, requestFor: (i: number) => BurstRequest): Burst {
  const first = new Float64Array(count).fill(Number.NaN)
  const endedAt = new Uint8Array(count)
  const sockets: Socket[] = []
  let firsts = 0
  let progress: (() => void) | undefined
  const burst: Burst = {
    count,
    failures: [],
    ended: 0,
    completed: 0,
    opened: (idleMs) => waitFor(() => firsts + burst.failures.length >= count, idleMs),
    settle: (idleMs) => waitFor(() => burst.ended >= count, idleMs),
    firstEvents: () => first.filter((value) => !Number.isNaN(value)).sort(),
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
    const issued = performance.now()
    const socket = connect({ host: '127.0.0.1', port })
    sockets.push(socket)
    socket.setEncoding('utf8')
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`)
    let seen = ''
    let streaming: boolean | undefined
    socket.on('data', (chunk: string) => {
      if (streaming === undefined) {
        seen += chunk
        const headEnd = seen.indexOf('\r\n\r\n')
        if (headEnd === -1) return
        streaming = seen.startsWith('HTTP/1.1 200') && /\r\ncontent-type: text\/event-stream/i.test(seen.slice(0, headEnd))
        chunk = seen.slice(headEnd + 4)
        seen = streaming ? '' : seen
      }
      if (!streaming) {
        seen += chunk
        return
      }
      if (Number.isNaN(first[i]!) && chunk.includes('data:')) {
        first[i] = performance.now() - issued
        firsts++
        progress?.()
      }
      // Only the end matters: the last event of a stream that completed names the state.
      seen = (seen + chunk).slice(-4096)
    })
    socket.on('error', (error) => end(i, `socket error: ${error.message}`))
    socket.on('close', () => {
      if (!streaming) return end(i, `not a stream: ${seen.slice(0, 200).replace(/\r\n/g, ' ')}`)
      if (seen.includes('"TASK_STATE_COMPLETED"')) burst.completed++
      end(i, Number.isNaN(first[i]!) ? 'ended before its first event' : undefined)
    })
  }
  return burst
}
