/**
 * Agent card signatures (A2A v1.0 card signing): a detached JWS whose payload is the card without
 * `signatures`, canonicalised with JCS (RFC 8785). Empty strings, arrays and objects are left out of
 * the payload, as both official SDKs do when they verify (see spec/decisions.md), so a card we sign
 * verifies with them. The protected header names the key (`kid`) and the JWKS that holds it (`jku`).
 * @module
 */
import canonicalize from 'canonicalize'
import { FlattenedSign, flattenedVerify, type JWK } from 'jose'
import type { AgentCard, AgentCardSignature } from '../wire/types.js'
import type { SigningKey } from './signing-keys.js'

export const JWKS_PATH = '/.well-known/jwks.json'

/** The signing input's payload: the card without signatures, empty members pruned, JCS-serialised. */
export function canonicalCardPayload(card: AgentCard): string {
  const { signatures: _signatures, ...rest } = card
  return canonicalize(prune(rest) ?? {})!
}

type PrivateSigningKey = SigningKey & { privateKey: NonNullable<SigningKey['privateKey']> }

export class CardSigner {
  readonly #signing: PrivateSigningKey

  constructor(readonly keys: readonly SigningKey[]) {
    const signing = keys.find((key) => key.privateKey)
    if (!signing) throw new Error('CardSigner needs at least one private key')
    this.#signing = signing as PrivateSigningKey
  }

  /** The public keys, as served at the JWKS URL. */
  get jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((key) => key.publicJwk as JWK) }
  }

  /** The card with one more signature, by the first private key, naming `jwksUrl` as its `jku`. */
  async sign(card: AgentCard, jwksUrl: string): Promise<AgentCard> {
    const payload = new TextEncoder().encode(canonicalCardPayload(card))
    const { alg, kid, privateKey } = this.#signing
    const jws = await new FlattenedSign(payload).setProtectedHeader({ alg, kid, typ: 'JOSE', jku: jwksUrl }).sign(privateKey)
    const signature: AgentCardSignature = { protected: jws.protected!, signature: jws.signature }
    return { ...card, signatures: [...(card.signatures ?? []), signature] }
  }
}

/**
 * Whether one of the card's signatures verifies against `keys` (a JWKS's `keys`). The runtime's own
 * check, used in tests and by apps that read cards; the official SDK client verifies the same way.
 */
export async function verifyCardSignature(card: AgentCard, keys: readonly JWK[]): Promise<boolean> {
  const payload = Buffer.from(canonicalCardPayload(card)).toString('base64url')
  for (const signature of card.signatures ?? []) {
    const header = JSON.parse(Buffer.from(signature.protected, 'base64url').toString()) as { kid?: string }
    const key = keys.find((candidate) => candidate.kid === header.kid)
    if (!key) continue
    try {
      await flattenedVerify({ payload, protected: signature.protected, signature: signature.signature }, key)
      return true
    } catch {
      // Try the next signature.
    }
  }
  return false
}

/** Drops null, undefined, "" and empty arrays and objects, depth first. */
function prune(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return undefined
  if (Array.isArray(value)) {
    const items = value.map(prune).filter((item) => item !== undefined)
    return items.length ? items : undefined
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value).flatMap(([key, member]) => {
      const pruned = prune(member)
      return pruned === undefined ? [] : [[key, pruned] as const]
    })
    return entries.length ? Object.fromEntries(entries) : undefined
  }
  return value
}
