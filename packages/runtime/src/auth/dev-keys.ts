/**
 * Development-only bearer keys: `"alice:key-alice,bob:key-bob"` maps each token to an owner.
 * Real deployments resolve principals from their own session or token middleware.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Principal, PrincipalResolver } from './principal.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

export function parseDevKeys(spec: string): Map<string, string> {
  const owners = new Map<string, string>()
  for (const entry of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const colon = entry.indexOf(':')
    const owner = entry.slice(0, colon).trim()
    const token = entry.slice(colon + 1).trim()
    if (colon <= 0 || !owner || !token) {
      throw new Error(`Development key "${entry}" is not owner:token; write it like "alice:key-alice"`)
    }
    if (owners.has(token)) throw new Error(`Development key for "${owner}" reuses another owner's token`)
    owners.set(token, owner)
  }
  if (owners.size === 0) throw new Error('No development keys given; write them like "alice:key-alice,bob:key-bob"')
  return owners
}

/** A resolver that accepts `Authorization: Bearer <token>` for the listed development keys. */
export function devKeyResolver(spec: string): PrincipalResolver {
  const keys = [...parseDevKeys(spec)].map(([token, owner]) => ({ hash: digest(token), owner, credential: `dev:${digest(token).toString('hex').slice(0, 16)}` }))
  return (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
    if (!match) return null
    const presented = digest(match[1]!)
    let principal: Principal | null = null
    // Compare against every key so timing does not tell which owners exist.
    for (const key of keys) if (timingSafeEqual(key.hash, presented)) principal = { owner: key.owner, credential: key.credential }
    return principal
  }
}
