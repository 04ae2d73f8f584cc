/**
 * Reads a request body up to a byte cap. A declared Content-Length over the cap is refused before a
 * byte is read; a body that grows past it while streaming is drained (so the client can read the
 * 413) up to a hard bound past which the connection is dropped. A body that stops arriving for
 * `idleTimeoutMs` is given up on, so a stalled client holds nothing for long.
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

export function readBody(request: IncomingMessage, limits: BodyLimits): Promise<BodyResult> {
  const { maxBodyBytes } = limits
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBodyBytes) return Promise.resolve({ tooLarge: true })
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    let idle: NodeJS.Timeout | undefined
    const settle = (result: BodyResult | Error) => {
      clearTimeout(idle)
      // A stream keeps its request open for long; let go of the body reader now.
      request.removeAllListeners('data')
      if (result instanceof Error) reject(result)
      else resolve(result)
    }
    const armIdle = () => {
      clearTimeout(idle)
      idle = setTimeout(() => settle({ stalled: true }), limits.bodyIdleTimeoutMs)
    }
    armIdle()
    request.on('data', (chunk: Buffer) => {
      armIdle()
      size += chunk.length
      if (size > maxBodyBytes) tooLarge = true
      if (tooLarge) {
        chunks.length = 0
        if (size > maxBodyBytes * DRAIN_FACTOR) request.destroy()
        return
      }
      chunks.push(chunk)
    })
    request.on('end', () => {
      if (tooLarge) return settle({ tooLarge: true })
      try {
        settle({ text: utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) })
      } catch {
        settle({ notUtf8: true })
      }
    })
    request.on('error', settle)
    request.on('close', () => {
      if (!request.complete) settle(new Error('client closed the request before sending the whole body'))
    })
  })
}

/** The status and message answering a body that was too large or stalled. */
export function bodyRefusal(result: { tooLarge: true } | { stalled: true }, limits: BodyLimits): { status: 413 | 408; message: string } {
  if ('tooLarge' in result) return { status: 413, message: `The request body is over the ${limits.maxBodyBytes}-byte limit (maxBodyBytes)` }
  return {
    status: 408,
    message: `The request body stopped arriving for ${limits.bodyIdleTimeoutMs} ms (bodyIdleTimeoutMs); send the whole body without pausing`,
  }
}
