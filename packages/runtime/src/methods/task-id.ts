/**
 * Task ids made from the message, so the same message sent at once to two replicas makes one id
 * and the store's primary key lets one task in.
 * @module
 */
import { createHash, hash as sha, type Hash } from 'node:crypto'
import type { Viewer } from '../core/principal.js'
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
  let hex: string
  let chars: number
  if (inCanonicalOrder(sent)) {
    // Most messages: JSON.stringify already writes the canonical bytes, natively and in one piece.
    const text = JSON.stringify(sent)
    hex = sha('sha256', text, 'hex')
    chars = text.length
  } else {
    const hash = new CanonicalHash()
    hash.add(sent)
    hex = hash.digest()
    chars = hash.chars
  }
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return { id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`, chars }
}

/**
 * Whether JSON.stringify writes `value` as its RFC 8785 canonical form: every object a plain one
 * (no toJSON) whose keys come in code-unit order, and only strings, numbers, booleans, null,
 * arrays and such objects in it (an undefined member is left out by both). JSON.stringify writes
 * strings and numbers as the canonical form does; integer-like keys, which objects list first,
 * are out of order unless they sort first anyway. A parsed message's keys usually are in order
 * (parts hold one key each); any other value is walked by {@link CanonicalHash}.
 */
function inCanonicalOrder(value: unknown): boolean {
  if (typeof value !== 'object') return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
  if (value === null) return true
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!inCanonicalOrder(value[i])) return false
    return true
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  let previous: string | undefined
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false
    previous = key
    const item = (value as Record<string, unknown>)[key]
    if (item !== undefined && !inCanonicalOrder(item)) return false
  }
  return true
}

/**
 * The member `key` (an item's index, '' at the root) as JSON carries it: what its toJSON makes of
 * it (a Date its ISO text), called with the key as JSON.stringify calls it; the value itself if it
 * has none. An in-process message hashes as the wire and the store carry it.
 */
function wireValue(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(value, key) : value
}

/**
 * SHA-256 of a JSON value's RFC 8785 canonical form (the bytes the canonicalize package makes:
 * keys sorted by code unit, strings and numbers as JSON.stringify writes them), fed to the hash as
 * it is walked rather than built as one string first; a 1 MiB text is stringified once. Values
 * come from parsed JSON whose strings the wire checked (no lone surrogates), so no escape differs;
 * a value with toJSON (an in-process message's Date) is hashed as what it makes.
 * A small value (most messages) is hashed in one call at the end: a streaming Hash object costs
 * more to make than its few hundred bytes cost to hash.
 */
class CanonicalHash {
  #hash: Hash | undefined
  #pending = ''
  chars = 0

  /** Adds `value` as JSON.stringify writes it. */
  add(value: unknown): void {
    this.#add(wireValue(value, ''))
  }

  /** `value` is what {@link wireValue} made of a member. */
  #add(value: unknown): void {
    if (value === null || typeof value !== 'object') return this.#text(JSON.stringify(value) ?? 'null')
    if (Array.isArray(value)) {
      this.#text('[')
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.#text(',')
        this.#add(wireValue(value[i], String(i)))
      }
      return this.#text(']')
    }
    this.#text('{')
    let first = true
    for (const key of Object.keys(value).sort()) {
      const item = wireValue((value as Record<string, unknown>)[key], key)
      if (item === undefined || typeof item === 'symbol') continue
      this.#text(`${first ? '' : ','}${JSON.stringify(key)}:`)
      first = false
      this.#add(item)
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
