/**
 * Cross-origin gate: a browser that names an origin other than the request's own Host is refused
 * before the body is read. Requests without Origin (curl, server-side agents) pass.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http'

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' }

export function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin)
    if (!(url.protocol in DEFAULT_PORTS)) return undefined
    return `${url.protocol}//${url.host}`.toLowerCase()
  } catch {
    return undefined
  }
}

/** True when the request may proceed. `allowed` holds normalized origins. */
export function originAllowed(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): boolean {
  const origin = headers.origin
  if (origin === undefined) return true
  const normalized = normalizeOrigin(origin)
  if (!normalized) return false
  if (allowed.has(normalized)) return true
  const url = new URL(normalized)
  const host = (headers.host ?? '').toLowerCase()
  const port = url.port || DEFAULT_PORTS[url.protocol]
  return host === url.host || host === `${url.hostname}:${port}`
}
