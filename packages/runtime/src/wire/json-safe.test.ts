import { describe, expect, it } from 'vitest'
import { assertJsonEncodable, encodeJson, NotJsonEncodableError } from './json-safe.js'

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
