/**
 * Serves `/.well-known/agent-card.json` with an ETag, Last-Modified and Cache-Control, answering
 * 304 to a matching If-None-Match or, when no If-None-Match is sent (RFC 9110 13.2.2), to an
 * If-Modified-Since not before Last-Modified. The card depends on the base URL, so it is built
 * (and signed) per base URL and cached. Its content is fixed for the life of the process, so
 * Last-Modified is the time this handler was made (to the second, as HTTP dates are). A gated card
 * is served only to an authenticated caller, checked before any 304, and marked private so shared
 * caches never hand one caller's copy to another.
 * @module
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { requestBaseUrl } from '../http/base-url.js'
import { sendJson } from '../http/respond.js'

export const AGENT_CARD_PATH = '/.well-known/agent-card.json'

interface CachedCard {
  body: string
  etag: string
}

/** Who may read a gated card: resolves the request to whether it carries a valid credential. */
export interface CardGate {
  authenticated: (request: IncomingMessage) => Promise<boolean>
  /** The `WWW-Authenticate` value of the 401 an anonymous caller gets. */
  challenge: (baseUrl: string) => string
}

export function createCardHandler(
  buildCard: (baseUrl: string) => unknown,
  publicUrl: string | undefined,
  maxAgeSeconds: number,
  gate?: CardGate,
  /** A request header the card also depends on (A2A-Version, when the agent serves a 0.3 card too). */
  varyOn?: string,
) {
  const cache = new Map<string, Promise<CachedCard>>()
  const modifiedAt = Math.floor(Date.now() / 1000) * 1000
  const lastModified = new Date(modifiedAt).toUTCString()
  const cardFor = (baseUrl: string): Promise<CachedCard> => {
    let cached = cache.get(baseUrl)
    if (!cached) {
      cached = Promise.resolve(buildCard(baseUrl)).then((card) => {
        const body = JSON.stringify(card)
        return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }
      })
      // A build that failed is tried again by the next request.
      cached.catch(() => cache.delete(baseUrl))
      if (cache.size >= 32) cache.delete(cache.keys().next().value!)
      cache.set(baseUrl, cached)
    }
    return cached
  }
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendJson(response, 405, { error: 'Use GET to read the agent card' }, { Allow: 'GET, HEAD' })
      return
    }
    const baseUrl = publicUrl ?? requestBaseUrl(request)
    if (gate && !(await gate.authenticated(request))) {
      sendJson(
        response,
        401,
        { error: 'This agent card is served to authenticated callers only: send the credentials you call the agent with' },
        {
          'WWW-Authenticate': gate.challenge(baseUrl),
          'Cache-Control': 'no-store',
        },
      )
      return
    }
    const card = await cardFor(baseUrl)
    const cacheControl = gate ? `private, max-age=${maxAgeSeconds}` : `public, max-age=${maxAgeSeconds}`
    const headers = {
      ETag: card.etag,
      'Last-Modified': lastModified,
      'Cache-Control': cacheControl,
      Vary: `${gate ? 'Host, Authorization' : 'Host'}${varyOn ? `, ${varyOn}` : ''}`,
    }
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

function notModifiedSince(header: string | undefined, modifiedAt: number): boolean {
  const since = header ? Date.parse(header) : Number.NaN
  return !Number.isNaN(since) && since >= modifiedAt
}

export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
