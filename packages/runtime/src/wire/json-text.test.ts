import { describe, expect, it } from 'vitest'
import { stringEnd } from './json-text.js'

describe('stringEnd', () => {
  it.each([
    ['"plain" rest', 7],
    ['"esc\\"aped" rest', 11],
    ['"ends in a backslash\\\\" rest', 23],
    ['"three \\\\\\" still" rest', 18],
    ['"unterminated', 13],
  ])('finds the end of %s', (text, end) => {
    expect(stringEnd(text, 0)).toBe(end)
    if (end < text.length) expect(JSON.parse(text.slice(0, end))).toBeTypeOf('string')
  })
})
