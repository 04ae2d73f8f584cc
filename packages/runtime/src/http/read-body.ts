/**
 * Reads a request body up to a byte cap. A declared Content-Length over the cap is refused before a
 * byte is read; a body that grows past it while streaming is drained (so the client can read the
 * 413) up to a hard bound past which the connection is dropped. A body that stops arriving for
 * `idleTimeoutMs` is given up on, so a stalled client holds nothing for long. A body the HTTP parser
 * already holds whole (most requests: it came in the same packets as the headers) is taken as it is,
 * with no listener, timer or promise.
 * @module
 */
import type { IncomingMessage } from 'node:http'

export type BodyResult = { text: string } | { tooLarge: true } | { notUtf8: true } | { stalled: true }

export interface BodyLimits {
  maxBodyBytes: number
  /** Longest wait for the next chunk of the body. */
  bodyIdleTimeoutMs: number
}

const DRAIN_FACTOR = 16
const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The body at once when there is nothing to wait for: a declared length over the cap, or a body
 * whose bytes the parser already pushed into the request's buffer, all of them and unread (its
 * declared length, or all the parser will send), which read() hands over as one Buffer (null when
 * empty). Else undefined: {@link readBody} waits for the rest.
 */
export function bodyAtOnce(request: IncomingMessage, limits: BodyLimits): BodyResult | undefined {
  const declared = Number(request.headers['content-length'])
  const length = Number.isFinite(declared) ? declared : undefined
  if (length !== undefined && length > limits.maxBodyBytes) return { tooLarge: true }
  if (request.readableDidRead || !(request.complete || (length !== undefined && request.readableLength === length))) return undefined
  return decoded(request.read() as Buffer | null, limits.maxBodyBytes)
}

/** The body; rejects when the client closes the request before it is whole. */
export function readBody(request: IncomingMessage, limits: BodyLimits): Promise<BodyResult> {
  const now = bodyAtOnce(request, limits)
  if (now) return Promise.resolve(now)
  const { maxBodyBytes } = limits
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    let idle: NodeJS.Timeout | undefined
    const settle = (result: BodyResult | Error) => {
      clearTimeout(idle)
      // A stream keeps its request open for its whole life: let go of the body reader (and what it holds) now.
      request.off('data', onData).off('end', onEnd).off('error', settle).off('close', onClose)
      if (result instanceof Error) reject(result)
      else resolve(result)
    }
    const armIdle = () => {
      clearTimeout(idle)
      idle = setTimeout(() => settle({ stalled: true }), limits.bodyIdleTimeoutMs)
    }
    const onData = (chunk: Buffer) => {
      armIdle()
      size += chunk.length
      if (size > maxBodyBytes) tooLarge = true
      if (tooLarge) {
        chunks.length = 0
        if (size > maxBodyBytes * DRAIN_FACTOR) request.destroy()
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      if (tooLarge) return settle({ tooLarge: true })
      settle(decoded(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), maxBodyBytes))
    }
    const onClose = () => {
      if (!request.complete) settle(new Error('client closed the request before sending the whole body'))
    }
    armIdle()
    request.on('data', onData).on('end', onEnd).on('error', settle).on('close', onClose)
  })
}

function decoded(bytes: Buffer | null, maxBodyBytes: number): BodyResult {
  if (bytes === null) return { text: '' }
  if (bytes.length > maxBodyBytes) return { tooLarge: true }
  try {
    return { text: utf8.decode(bytes) }
  } catch {
    return { notUtf8: true }
  }
}

/** The status and message answering a body that was too large or stalled. */
export function bodyRefusal(result: { tooLarge: true } | { stalled: true }, limits: BodyLimits): { status: 413 | 408; message: string } {
  if ('tooLarge' in result) return { status: 413, message: `The request body is over the ${limits.maxBodyBytes}-byte limit (maxBodyBytes)` }
  return {
    status: 408,
    message: `The request body stopped arriving for ${limits.bodyIdleTimeoutMs} ms (bodyIdleTimeoutMs); send the whole body without pausing`,
  }
}
