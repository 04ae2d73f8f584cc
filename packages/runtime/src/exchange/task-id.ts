/**
 * Task ids made from the message, so the same message sent at once to two replicas makes one id
 * and the store's primary key lets one task in.
 * @module
 */
import { createHash, hash as sha, type Hash } from 'node:crypto'
import type { Viewer } from '../auth/principal.js'
import type { Message } from '../wire/types.js'

/** Strings at least this long go to the hash on their own instead of through the pending text. */
const DIRECT_CHARS = 4096

/**
 * A new task's id, made from the message as sent and the caller's tier: the same message sent
 * twice at once (to two replicas) makes one id, so the store's primary key lets one task in, with
 * no read-then-write race. Any other message, or the same one from another tier, makes another id.
 * Shaped as a UUID (version 8, RFC 9562). `chars` is how much text was hashed (large is slow).
 */
export function taskIdOf(viewer: Viewer, message: Message): { id: string; chars: number } {
  const sent = [viewer.owner, viewer.tenant, viewer.scope, message.messageId, message.contextId ?? null, message.parts, message.metadata ?? {}]
  const hash = new CanonicalHash()
  hash.add(sent)
  const hex = hash.digest()
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return { id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`, chars: hash.chars }
}

/**
 * SHA-256 of a JSON value's RFC 8785 canonical form (the bytes the canonicalize package makes:
 * keys sorted by code unit, strings and numbers as JSON.stringify writes them), fed to the hash as
 * it is walked rather than built as one string first; a 1 MiB text is stringified once. Values
 * come from parsed JSON whose strings the wire checked (no lone surrogates), so no escape differs.
 * A small value (most messages) is hashed in one call at the end: a streaming Hash object costs
 * more to make than its few hundred bytes cost to hash.
 */
class CanonicalHash {
  #hash: Hash | undefined
  #pending = ''
  chars = 0

  add(value: unknown): void {
    if (value === null || typeof value !== 'object') return this.#text(JSON.stringify(value) ?? 'null')
    if (Array.isArray(value)) {
      this.#text('[')
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.#text(',')
        const item: unknown = value[i]
        this.add(item === undefined || typeof item === 'symbol' ? null : item)
      }
      return this.#text(']')
    }
    this.#text('{')
    let first = true
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined || typeof item === 'symbol') continue
      this.#text(`${first ? '' : ','}${JSON.stringify(key)}:`)
      first = false
      this.add(item)
    }
    this.#text('}')
  }

  digest(): string {
    if (!this.#hash) return sha('sha256', this.#pending, 'hex')
    this.#flush()
    return this.#hash.digest('hex')
  }

  #text(text: string): void {
    this.chars += text.length
    if (text.length < DIRECT_CHARS) {
      this.#pending += text
      if (this.#pending.length < DIRECT_CHARS) return
      return this.#flush()
    }
    this.#flush()
    this.#hash!.update(text)
  }

  /** Past DIRECT_CHARS the text goes to a streaming hash, so a large message is never held twice. */
  #flush(): void {
    this.#hash ??= createHash('sha256')
    if (this.#pending) this.#hash.update(this.#pending)
    this.#pending = ''
  }
}
