import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import type { Message } from '../wire/types.js'
import { taskIdOf } from './task-id.js'

const alice = { owner: 'alice', tenant: null, scope: null }
const message = (fields: Partial<Message>): Message => ({ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...fields })

/** The id as made from the canonicalize package's whole string: replicas on either version agree. */
function idFromWholeString(viewer: typeof alice, sent: Message): string {
  const canonical = canonicalize([viewer.owner, viewer.tenant, viewer.scope, sent.messageId, sent.contextId ?? null, sent.parts, sent.metadata ?? {}])!
  const hex = createHash('sha256').update(canonical).digest('hex')
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

describe('taskIdOf', () => {
  it('hashes the RFC 8785 canonical form, the same bytes as the canonicalize package builds', () => {
    const messages = [
      message({}),
      message({
        contextId: 'c',
        parts: [{ text: 'hé"\\\n😀\u001f' }, { raw: 'AAAA', mediaType: 'x/y' }],
        metadata: { z: 1, a: [1.5, -0, 1e21, true, null, { y: undefined, b: 'x' }], é: 2, B: {} },
      }),
      message({ parts: [{ text: 'x'.repeat(1 << 20) }, { text: 'y'.repeat(5000) }, { data: { key: 'z'.repeat(10_000) } }] }),
      // Many short strings: the one-call hash of small messages gives way to the streaming one midway.
      message({ parts: Array.from({ length: 100 }, (_, i) => ({ text: `part ${i} `.repeat(10) })) }),
    ]
    for (const sent of messages) expect(taskIdOf(alice, sent).id).toBe(idFromWholeString(alice, sent))
    expect(taskIdOf({ owner: 'alice', tenant: 't1', scope: 's' }, messages[1]!).id).toBe(idFromWholeString({ owner: 'alice', tenant: 't1', scope: 's' } as never, messages[1]!))
  })

  it('hashes the same bytes whether the message is written by JSON.stringify (keys already in order) or walked', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: [2, 'x'] })
    const messages = [
      // Keys in code-unit order throughout: one JSON.stringify.
      message({ contextId: 'c', parts: [{ data: { a: [1, { b: null, c: 'd' }], b: -0, z: 1.5e-7 } }], metadata: { A: 1, a: 2 } }),
      message({ parts: [{ data: { x: undefined, y: 1 } }], metadata: bare }),
      // Out of order somewhere: walked.
      message({ parts: [{ mediaType: 'text/plain', text: 'hi' }] }),
      message({ parts: [{ data: { 9: 'a', 10: 'b', x: 'c' } }] }),
      message({ parts: [{ data: { 1: 'a', 2: 'b' } }] }),
      message({ parts: [{ data: { list: [undefined, 1] } }] }),
      message({ parts: [{ data: { b: { d: 1, c: 2 }, a: 1 } }] }),
      // Large and walked: the streaming hash.
      message({ parts: [{ mediaType: 'x/y', text: 'x'.repeat(1 << 20) }, ...Array.from({ length: 100 }, (_, i) => ({ mediaType: 'x/y', text: `part ${i} `.repeat(10) }))] }),
    ]
    for (const sent of messages) expect(taskIdOf(alice, sent).id).toBe(idFromWholeString(alice, sent))
    expect(taskIdOf({ owner: 'alice', tenant: 't1', scope: 's' }, messages[1]!).id).toBe(idFromWholeString({ owner: 'alice', tenant: 't1', scope: 's' } as never, messages[1]!))
  })

  it('makes one id for the same message whatever its key order, another for other content under the same messageId', () => {
    const first = taskIdOf(alice, message({ metadata: { a: 1, b: [{ x: 1, y: 2 }] } })).id
    expect(taskIdOf(alice, message({ metadata: { b: [{ y: 2, x: 1 }], a: 1 } })).id).toBe(first)
    expect(taskIdOf(alice, message({ metadata: { a: 1, b: [{ x: 1, y: 3 }] } })).id).not.toBe(first)
    expect(taskIdOf(alice, message({ metadata: { a: 1, b: [{ x: 1, y: 2 }] }, parts: [{ text: 'hi!' }] })).id).not.toBe(first)
    expect(taskIdOf({ owner: 'bob', tenant: null, scope: null }, message({ metadata: { a: 1, b: [{ x: 1, y: 2 }] } })).id).not.toBe(first)
  })

  it('hashes a value with toJSON as JSON carries it (a Date as its ISO text), as the canonicalize package does', () => {
    const at = new Date('2026-01-31T12:00:00.000Z')
    const withDates = message({ parts: [{ data: { when: at, list: [at, { at }] } }], metadata: { sent: at } })
    const withTexts = message({ parts: [{ data: { when: at.toJSON(), list: [at.toJSON(), { at: at.toJSON() }] } }], metadata: { sent: at.toJSON() } })
    expect(taskIdOf(alice, withDates).id).toBe(idFromWholeString(alice, withDates))
    expect(taskIdOf(alice, withDates).id).toBe(taskIdOf(alice, withTexts).id)
    // Another date is another message, not an empty object like every other date.
    expect(taskIdOf(alice, message({ parts: [{ data: { when: new Date(0) } }] })).id).not.toBe(taskIdOf(alice, message({ parts: [{ data: { when: at } }] })).id)
    // JSON.stringify hands toJSON the member's key (an array item's index) and leaves out an undefined result.
    const keyed = { toJSON: (key: string) => (key === 'skip' ? undefined : `key ${key}`) }
    const sent = message({ parts: [{ data: { a: keyed, skip: keyed, list: [keyed] } }] })
    expect(taskIdOf(alice, sent).id).toBe(taskIdOf(alice, message({ parts: [{ data: { a: 'key a', list: ['key 0'] } }] })).id)
  })

  it('is shaped as a version 8 UUID and counts the text it hashed', () => {
    const { id, chars } = taskIdOf(alice, message({ parts: [{ text: 't'.repeat(100_000) }] }))
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(chars).toBeGreaterThan(100_000)
  })
})
