/**
 * Which generation a request asks for, read as the 1.0 negotiation reads it: the `A2A-Version`
 * header, else the `?A2A-Version=` query parameter; '' when neither is sent (which the
 * specification reads as 0.3).
 * @module
 */
import type { IncomingMessage } from 'node:http'
import { headerValue, queryVersion } from '../http/gate.js'

export function requestedVersion(request: IncomingMessage): string {
  return headerValue(request.headers['a2a-version'])?.trim() || queryVersion(request.url)?.trim() || ''
}

/** Whether a card request is answered with the 0.3 card: compat on, and no 1.x version asked for. */
export const wantsV03Card = (request: IncomingMessage): boolean => {
  const version = requestedVersion(request)
  return version === '' || version.startsWith('0.')
}
