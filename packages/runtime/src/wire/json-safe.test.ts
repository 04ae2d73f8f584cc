import { describe, expect, it } from 'vitest'
import { answerText, assertJsonEncodable, encodeJson, NotJsonEncodableError, rememberedText, rememberText } from './json-safe.js'

const cycle: Record<string, unknown> = { a: 1 }
cycle.self = cycle

// Each is refused by both, with the same path and reason, whichever check spots it first.
const refused: [string, unknown, string][] = [
  ['NaN', { a: [1, { n: Number.NaN }] }, 'task.a[1].n cannot be encoded as JSON: NaN is not a finite number'],
  ['Infinity', [Number.POSITIVE_INFINITY], 'task[0] cannot be encoded as JSON: Infinity is not a finite number'],
  ['a function', { f: () => 1 }, 'task.f cannot be encoded as JSON: a function is not JSON'],
  ['a symbol', [Symbol('s')], 'task[0] cannot be encoded as JSON: a symbol is not JSON'],
  ['a bigint', { b: 1n }, 'task.b cannot be encoded as JSON: a bigint is not JSON'],
  ['a cycle', cycle, 'task.self cannot be encoded as JSON: it refers to itself (a cycle)'],
  ['NUL in a string', { t: 'a\u0000b' }, 'task.t cannot be encoded as JSON: contains U+0000'],
  ['a lone high surrogate', { t: 'x\ud800' }, 'task.t cannot be encoded as JSON: contains a lone UTF-16 surrogate'],
  ['a lone low surrogate', ['\udfff'], 'task[0] cannot be encoded as JSON: contains a lone UTF-16 surrogate'],
  ['NUL in a key', { 'k\u0000': 1 }, 'task["k\\u0000"] cannot be encoded as JSON: its key contains U+0000'],
]

describe('encodeJson and assertJsonEncodable', () => {
  it.each(refused)('refuse %s, naming where', (_, value, message) => {
    expect(() => encodeJson(value, 'task')).toThrow(NotJsonEncodableError)
    expect(() => encodeJson(value, 'task')).toThrow(message)
    expect(() => assertJsonEncodable(value, 'task')).toThrow(message)
  })

  it('encode what JSON carries as JSON.stringify does', () => {
    const value = {
      pair: '😀',
      // Text that reads like an escape is not one: its backslash is escaped.
      lookalike: '\\u0000 \\ud800 \\\\u0000',
      control: '\u0001\u001f',
      date: new Date(0),
      absent: undefined,
      nested: [{ n: 1.5, ok: true, none: null }],
    }
    expect(encodeJson(value, 'task')).toBe(JSON.stringify(value))
    expect(() => assertJsonEncodable(value, 'task')).not.toThrow()
  })

  it('check a value too deep for recursion without overflowing', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(() => assertJsonEncodable(deep, 'task')).not.toThrow()
  })
})

describe('answerText', () => {
  it('writes what JSON.stringify writes when nothing is remembered', () => {
    for (const value of [{ a: 1, b: [true, null] }, { only: { x: 'y' } }, [1, 2], 'text', 3, null, {}]) expect(answerText(value)).toBe(JSON.stringify(value))
    expect(answerText(undefined)).toBeUndefined()
  })

  it('sends a remembered object as its text, alone or as the one member of an answer', () => {
    const task = { id: 't', status: { state: 'TASK_STATE_COMPLETED' } }
    // A text that differs from the object's encoding shows which one was sent.
    rememberText(task, '{"stored":true}')
    expect(rememberedText(task)).toBe('{"stored":true}')
    expect(answerText(task)).toBe('{"stored":true}')
    expect(answerText({ task })).toBe('{"task":{"stored":true}}')
    expect(JSON.parse(answerText({ 'k"ey': task })!)).toEqual({ 'k"ey': { stored: true } })
  })

  it('forgets a text once many later ones were remembered, and never keeps a large one', () => {
    const task = { id: 'old' }
    rememberText(task, '{"stored":true}')
    for (let i = 0; i < 64; i++) rememberText({ i }, `{"i":${i}}`)
    expect(answerText(task)).toBe('{"id":"old"}')
    const large = { text: 'x'.repeat(20_000) }
    rememberText(large, JSON.stringify({ text: 'y'.repeat(20_000) }))
    expect(answerText(large)).toBe(JSON.stringify(large))
  })

  it('encodes the whole answer when the remembered object is one of several members, inherited ones included, or under toJSON', () => {
    const task = { id: 't' }
    rememberText(task, '{"stored":true}')
    expect(answerText({ task, other: 1 })).toBe(JSON.stringify({ task, other: 1 }))
    const inheriting = Object.assign(Object.create({ inherited: 1 }) as object, { task })
    expect(answerText(inheriting)).toBe(JSON.stringify(inheriting))
    const custom = { task, toJSON: () => ({ replaced: true }) }
    expect(answerText(custom)).toBe('{"replaced":true}')
  })
})
