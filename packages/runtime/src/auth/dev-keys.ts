/**
 * Development-only bearer keys: `"alice:<token>,bob:<token>"` maps each token to an owner. They
 * are refused under NODE_ENV=production: a deployment resolves callers from API keys or its own
 * session middleware, never from tokens kept in an environment variable.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Principal, PrincipalResolver } from '../core/principal.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

export function parseDevKeys(spec: string): Map<string, string> {
  const owners = new Map<string, string>()
  for (const entry of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
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

/** The variable apps read development keys from. */
export const DEV_KEYS_VARIABLE = 'A2A_DEV_KEYS'

/**
 * A resolver that accepts `Authorization: Bearer <token>` for the listed development keys.
 * Throws when NODE_ENV is `production`.
 */
export function devKeyResolver(spec: string, env: NodeJS.ProcessEnv = process.env): PrincipalResolver {
  if (env.NODE_ENV === 'production') {
    throw new Error('Development keys are refused when NODE_ENV=production; resolve callers from API keys (`a2a keys create --user <id>`) instead')
  }
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

/**
 * The development keys A2A_DEV_KEYS lists, or undefined when it is unset or empty. Throws, naming
 * the variable, when it is set under NODE_ENV=production, so an app deployed with development
 * keys refuses to start instead of accepting them.
 */
export function devKeysFromEnv(env: NodeJS.ProcessEnv = process.env): PrincipalResolver | undefined {
  const spec = env[DEV_KEYS_VARIABLE]?.trim()
  if (!spec) return undefined
  if (env.NODE_ENV === 'production') {
    throw new Error(
      `${DEV_KEYS_VARIABLE} is set while NODE_ENV=production: development keys must not reach a deployment. Unset ${DEV_KEYS_VARIABLE} and give callers API keys (\`a2a keys create --user <id>\`).`,
    )
  }
  return devKeyResolver(spec, env)
}

/** `resolver`, tried after the development keys in A2A_DEV_KEYS when that is set (see {@link devKeysFromEnv}). */
export function withDevKeys(resolver: PrincipalResolver, env: NodeJS.ProcessEnv = process.env): PrincipalResolver {
  const devKeys = devKeysFromEnv(env)
  if (!devKeys) return resolver
  return async (request) => (await devKeys(request)) ?? resolver(request)
}
