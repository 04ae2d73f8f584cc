/**
 * Serves `/.well-known/agent-card.json` with an ETag and Cache-Control, answering 304 to a
 * matching If-None-Match. The card depends on the base URL, so it is built per base URL and cached.
 * @module
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendJson } from '../http/respond.js'

export const AGENT_CARD_PATH = '/.well-known/agent-card.json'

interface CachedCard {
  body: string
  etag: string
}

export function createCardHandler(buildCard: (baseUrl: string) => unknown, publicUrl: string | undefined, maxAgeSeconds: number) {
  const cache = new Map<string, CachedCard>()
  const cardFor = (baseUrl: string): CachedCard => {
    let cached = cache.get(baseUrl)
    if (!cached) {
      const body = JSON.stringify(buildCard(baseUrl))
      cached = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }
      if (cache.size >= 32) cache.delete(cache.keys().next().value!)
      cache.set(baseUrl, cached)
    }
    return cached
  }
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendJson(response, 405, { error: 'Use GET to read the agent card' }, { Allow: 'GET, HEAD' })
      return
    }
    const card = cardFor(publicUrl ?? requestBaseUrl(request))
    const headers = { ETag: card.etag, 'Cache-Control': `public, max-age=${maxAgeSeconds}`, Vary: 'Host' }
    if (etagMatches(request.headers['if-none-match'], card.etag)) {
      response.writeHead(304, headers)
      response.end()
      return
    }
    response.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(card.body) })
    response.end(request.method === 'HEAD' ? undefined : card.body)
  }
}

export function requestBaseUrl(request: IncomingMessage): string {
  const encrypted = (request.socket as { encrypted?: boolean }).encrypted === true
  return `${encrypted ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}`
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
