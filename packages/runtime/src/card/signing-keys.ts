/**
 * Agent-card signing keys from the app's configuration: PEM text (one or several blocks), a JWK, or
 * a JWK Set. The first private key signs; every key's public half is published in the JWKS, so a
 * card signed by an earlier key still verifies while that key (even as a public JWK) stays listed.
 * @module
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto'
import canonicalize from 'canonicalize'

/** A key as configured: PEM or JSON text, or a JWK object. */
export type SigningKeyInput = string | JsonWebKey

export interface SigningKey {
  kid: string
  alg: string
  /** Absent for a key published only (a retired key kept so older cards still verify). */
  privateKey?: KeyObject
  /** The public JWK as the JWKS lists it, with `kid`, `alg` and `use`. */
  publicJwk: JsonWebKey
}

/** The variable scaffolded apps read their card signing keys from. */
export const SIGNING_KEY_ENV = 'A2A_CARD_SIGNING_KEY'

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g

/** Parses every key in `inputs`; throws naming the entry that is not a usable key. */
export function parseSigningKeys(inputs: SigningKeyInput | readonly SigningKeyInput[]): SigningKey[] {
  const list = Array.isArray(inputs) ? inputs : [inputs as SigningKeyInput]
  const keys = list.flatMap((input, index) => expand(input, index)).map(({ key, where }) => toSigningKey(key, where))
  if (!keys.some((key) => key.privateKey)) {
    throw new Error('Card signing keys hold no private key: add a private PEM or JWK (the first one signs)')
  }
  const kids = new Set<string>()
  for (const key of keys) {
    if (kids.has(key.kid)) throw new Error(`Two card signing keys share the kid "${key.kid}"; give each key its own kid`)
    kids.add(key.kid)
  }
  return keys
}

/** A fresh P-256 private key as JWK text, for an app's `.env`. */
export function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = privateKey.export({ format: 'jwk' })
  return JSON.stringify({ ...jwk, kid: thumbprint(jwk), alg: 'ES256' })
}

interface RawKey {
  key: string | JsonWebKey
  where: string
}

function expand(input: SigningKeyInput, index: number): RawKey[] {
  const where = `card signing key ${index + 1}`
  if (typeof input !== 'string') return [{ key: input, where }]
  const text = input.trim().replace(/\\n/g, '\n')
  if (text.startsWith('-----BEGIN')) {
    const blocks = text.match(PEM_BLOCK) ?? []
    if (!blocks.length) throw new Error(`${where}: the PEM text has no complete BEGIN/END block`)
    return blocks.map((key, block) => ({ key, where: blocks.length > 1 ? `${where}, PEM block ${block + 1}` : where }))
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Error(`${where} is neither PEM (-----BEGIN PRIVATE KEY-----) nor JSON (a JWK or {"keys":[…]})`)
  }
  if (isObject(parsed) && Array.isArray(parsed.keys)) {
    return parsed.keys.map((key: unknown, entry: number) => {
      if (!isObject(key)) throw new Error(`${where}: keys[${entry}] is not a JWK object`)
      return { key: key as JsonWebKey, where: `${where}, keys[${entry}]` }
    })
  }
  if (!isObject(parsed)) throw new Error(`${where}: the JSON is not a JWK object or a JWK Set`)
  return [{ key: parsed as JsonWebKey, where }]
}

function toSigningKey(key: string | JsonWebKey, where: string): SigningKey {
  const isPrivate = typeof key === 'string' ? /PRIVATE KEY/.test(key) : typeof key.d === 'string'
  let privateKey: KeyObject | undefined
  let publicKey: KeyObject
  try {
    if (isPrivate) {
      privateKey = typeof key === 'string' ? createPrivateKey(key) : createPrivateKey({ key, format: 'jwk' })
      publicKey = createPublicKey(privateKey)
    } else {
      publicKey = typeof key === 'string' ? createPublicKey(key) : createPublicKey({ key, format: 'jwk' })
    }
  } catch (error) {
    throw new Error(`${where} is not a usable key: ${(error as Error).message}`)
  }
  const jwk = publicKey.export({ format: 'jwk' })
  const given = typeof key === 'string' ? {} : key
  const alg = typeof given.alg === 'string' ? given.alg : algorithmOf(jwk, where)
  const kid = typeof given.kid === 'string' && given.kid ? given.kid : thumbprint(jwk)
  return { kid, alg, ...(privateKey ? { privateKey } : {}), publicJwk: { ...jwk, kid, alg, use: 'sig' } }
}

function algorithmOf(jwk: JsonWebKey, where: string): string {
  if (jwk.kty === 'EC') {
    const alg = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[jwk.crv ?? '']
    if (alg) return alg
  }
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA'
  if (jwk.kty === 'RSA') return 'RS256'
  throw new Error(`${where}: ${jwk.kty} ${jwk.crv ?? ''} keys cannot sign cards; use EC P-256/P-384/P-521, Ed25519 or RSA`)
}

/** RFC 7638 thumbprint: SHA-256 over the key's required members, base64url. */
function thumbprint(jwk: JsonWebKey): string {
  const members: Record<string, readonly string[]> = { EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'], RSA: ['e', 'kty', 'n'] }
  const required = Object.fromEntries((members[jwk.kty ?? ''] ?? ['kty']).map((name) => [name, (jwk as Record<string, unknown>)[name]]))
  return createHash('sha256').update(canonicalize(required)!).digest('base64url')
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
