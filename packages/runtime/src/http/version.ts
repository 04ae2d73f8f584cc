/**
 * `A2A-Version` negotiation. This server speaks 1.x (patch ignored). An absent or empty value
 * means 0.3 by the specification and is refused unless the app chose to assume a version.
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'

const SEND_THIS = 'send the header "A2A-Version: 1.0" (or the query parameter ?A2A-Version=1.0)'

export function negotiateVersion(header: string | undefined, query: string | undefined, assumeWhenAbsent: string | undefined): string {
  // What nearly every client sends: no trim, no match.
  if (header === '1.0') return header
  const value = header?.trim() || query?.trim() || assumeWhenAbsent || ''
  if (value === '') {
    throw new A2AError('VERSION_NOT_SUPPORTED', `No A2A-Version given, which means A2A 0.3; this server speaks 1.0: ${SEND_THIS}`, {
      metadata: { requested: '0.3', supported: '1.0' },
    })
  }
  const match = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(value)
  if (match?.[1] !== '1') {
    throw new A2AError('VERSION_NOT_SUPPORTED', `A2A-Version ${JSON.stringify(value.slice(0, 32))} is not supported; this server speaks 1.0: ${SEND_THIS}`, {
      metadata: { requested: value.slice(0, 32), supported: '1.0' },
    })
  }
  return `1.${match[2] ?? '0'}`
}
