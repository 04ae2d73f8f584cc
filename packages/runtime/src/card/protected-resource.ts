/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the app (the `WWW-Authenticate` challenge
 * that points a refused caller at it is http/bearer-challenge.ts); plus a small server for such well-known JSON
 * documents (the metadata and the card's JWKS), public and cacheable.
 * @module
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendJson } from '../http/respond.js'
import { requestBaseUrl } from '../http/base-url.js'
import { etagMatches } from './card-handler.js'

export interface ProtectedResourceOptions {
  /** Issuer URLs of the authorization servers whose tokens this agent accepts. */
  authorizationServers?: string[]
  /** The scopes this agent's credentials may carry (what a narrowed key or token can be given). */
  scopes?: string[]
}

export interface ResourceDescription {
  name: string
  documentationUrl?: string
  /** Set when the card is signed: where its public keys are. */
  jwksUrl?: string
}

/** The metadata document; the resource is the app itself, so it covers the exchange and /mcp. */
export function protectedResourceMetadata(baseUrl: string, options: ProtectedResourceOptions, resource: ResourceDescription): Record<string, unknown> {
  return {
    resource: baseUrl,
    ...(options.authorizationServers?.length ? { authorization_servers: options.authorizationServers } : {}),
    ...(options.scopes?.length ? { scopes_supported: options.scopes } : {}),
    bearer_methods_supported: ['header'],
    resource_name: resource.name,
    ...(resource.documentationUrl ? { resource_documentation: resource.documentationUrl } : {}),
    ...(resource.jwksUrl ? { jwks_uri: resource.jwksUrl } : {}),
  }
}

/** Serves a public JSON document built per base URL, with an ETag, 304 and Cache-Control. */
export function createDocumentHandler(build: (baseUrl: string) => unknown, publicUrl: string | undefined, maxAgeSeconds: number) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendJson(response, 405, { error: 'Use GET to read this document' }, { Allow: 'GET, HEAD' })
      return
    }
    const body = JSON.stringify(build(publicUrl ?? requestBaseUrl(request)))
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`
    const headers = { ETag: etag, 'Cache-Control': `public, max-age=${maxAgeSeconds}`, Vary: 'Host' }
    if (etagMatches(request.headers['if-none-match'], etag)) {
      response.writeHead(304, headers)
      response.end()
      return
    }
    response.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
    response.end(request.method === 'HEAD' ? undefined : body)
  }
}
