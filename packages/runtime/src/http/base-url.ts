/**
 * The scheme://host[:port] a request reached this server at, for the URLs answers carry (the card's
 * interfaces, a 401's challenge) when no public URL is configured.
 * @module
 */
import type { IncomingMessage } from 'node:http'

/** The last base URL made, for the next request from the same host: callers of one agent name it alike, and each run keeps its own. */
let lastBase = { host: '', encrypted: false, url: '' }

export function requestBaseUrl(request: IncomingMessage): string {
  const encrypted = (request.socket as { encrypted?: boolean }).encrypted === true
  const host = request.headers.host ?? 'localhost'
  if (host !== lastBase.host || encrypted !== lastBase.encrypted) lastBase = { host, encrypted, url: `${encrypted ? 'https' : 'http'}://${host}` }
  return lastBase.url
}
