/**
 * Reads a request body up to a byte cap. Over the cap, the rest is drained (so the client can read
 * the 413) up to a hard bound past which the connection is dropped.
 * @module
 */
import type { IncomingMessage } from 'node:http'

export type BodyResult = { text: string } | { tooLarge: true } | { notUtf8: true }

const DRAIN_FACTOR = 16
const utf8 = new TextDecoder('utf-8', { fatal: true })

export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'])
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = Number.isFinite(declared) && declared > maxBytes
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) tooLarge = true
      if (tooLarge) {
        chunks.length = 0
        if (size > maxBytes * DRAIN_FACTOR) request.destroy()
        return
      }
      chunks.push(chunk)
    })
    request.on('end', () => {
      // A stream keeps its request open for long; let go of the body reader now.
      request.removeAllListeners('data')
      if (tooLarge) return resolve({ tooLarge: true })
      try {
        resolve({ text: utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) })
      } catch {
        resolve({ notUtf8: true })
      }
    })
    request.on('error', reject)
    request.on('close', () => {
      if (!request.complete) reject(new Error('client closed the request before sending the whole body'))
    })
  })
}
