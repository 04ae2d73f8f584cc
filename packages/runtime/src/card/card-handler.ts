/**
 * Serves `/.well-known/agent-card.json` with an ETag, Last-Modified and Cache-Control, answering
 * 304 to a matching If-None-Match or, when no If-None-Match is sent (RFC 9110 13.2.2), to an
 * If-Modified-Since not before Last-Modified. The card depends on the base URL, so it is built
 * per base URL and cached. Its content is fixed for the life of the process, so Last-Modified is
 * the time this handler was made (to the second, as HTTP dates are).
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
  const modifiedAt = Math.floor(Date.now() / 1000) * 1000
  const lastModified = new Date(modifiedAt).toUTCString()
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
    const headers = { ETag: card.etag, 'Last-Modified': lastModified, 'Cache-Control': `public, max-age=${maxAgeSeconds}`, Vary: 'Host' }
    const ifNoneMatch = request.headers['if-none-match']
    const unchanged = ifNoneMatch ? etagMatches(ifNoneMatch, card.etag) : notModifiedSince(request.headers['if-modified-since'], modifiedAt)
    if (unchanged) {
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

function notModifiedSince(header: string | undefined, modifiedAt: number): boolean {
  const since = header ? Date.parse(header) : Number.NaN
  return !Number.isNaN(since) && since >= modifiedAt
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
