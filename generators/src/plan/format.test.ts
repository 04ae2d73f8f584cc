import { describe, expect, it } from 'vitest'
import { format } from './format.js'
import { printLiteral, printObject, printUnionAlias, quote } from './literal.js'

describe('format', () => {
  it('normalizes line endings, trailing spaces, blank-line runs and the final newline', () => {
    expect(format('\n\na  \r\nb\t\r\n\n\n\nc\n\n\n')).toBe('a\nb\n\nc\n')
    expect(format('x')).toBe('x\n')
  })
})

describe('printLiteral', () => {
  it('prints one line when it fits, else one entry per line with trailing commas', () => {
    expect(printLiteral({ type: 'string', enum: ['a', 'b'] })).toBe("{ type: 'string', enum: ['a', 'b'] }")
    expect(printLiteral({ description: 'x'.repeat(90), type: 'string' }, '  ', 2)).toBe(`{\n    description: '${'x'.repeat(90)}',\n    type: 'string',\n  }`)
    expect(printLiteral({})).toBe('{}')
  })

  it('quotes keys only when needed and strings the way prettier does', () => {
    expect(printLiteral({ 'a-b': 1, ok: null })).toBe("{ 'a-b': 1, ok: null }")
    expect(quote("it's")).toBe(`"it's"`)
    expect(quote('a\\b\n\'"')).toBe("'a\\\\b\\n\\'\"'")
  })
})

describe('printObject and printUnionAlias', () => {
  it('break like prettier when a line would pass 100 columns', () => {
    expect(printObject(['...a', 'b: 1'], '  ', 10)).toBe('{ ...a, b: 1 }')
    expect(printObject(['...a', `b: '${'y'.repeat(90)}'`], '  ', 10)).toBe(`{\n    ...a,\n    b: '${'y'.repeat(90)}',\n  }`)
    expect(printUnionAlias('T', ["'a'", "'b'"])).toBe("type T = 'a' | 'b'")
    const two = [`'${'x'.repeat(44)}'`, `'${'y'.repeat(44)}'`]
    expect(printUnionAlias('T', two)).toBe(`type T =\n  ${two.join(' | ')}`)
    const more = Array.from({ length: 20 }, (_, index) => `'field${index}'`)
    expect(printUnionAlias('T', more)).toBe(`type T =\n${more.map((member) => `  | ${member}`).join('\n')}`)
  })
})
