import { describe, expect, it } from 'vitest'
import { decodeEnvelope, EnvelopeError, findRepeatedTopLevelKey } from './json-rpc.js'
import { checkBodyText, DEFAULT_REQUEST_LIMITS } from './limits.js'

const refusal = (body: string): string | undefined => {
  try {
    decodeEnvelope(body)
    return undefined
  } catch (error) {
    return error instanceof EnvelopeError ? `${error.error.code} ${error.error.message}` : String(error)
  }
}

describe('repeated keys', () => {
  const keys = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')

  it('finds a repeat among the top-level keys and the keys of params, exactly or in another case, however many keys there are', () => {
    for (const count of [0, 3, 15, 16, 17, 40]) {
      const before = count ? `${keys(count)},` : ''
      expect(findRepeatedTopLevelKey(`{${before}"a":1,"a":2}`)).toBe('top-level key "a" appears more than once')
      expect(findRepeatedTopLevelKey(`{${before}"a":1,"A":2}`)).toBe('top-level key "A" repeats "a" in another case')
      expect(findRepeatedTopLevelKey(`{${before}"a":1,"b":2}`)).toBeUndefined()
      expect(findRepeatedTopLevelKey(`{"a":1,${before}"A":2}`)).toBe('top-level key "A" repeats "a" in another case')
      expect(refusal(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{${before}"id":"x","Id":"y"}}`)).toBe('-32700 Invalid JSON payload: key of params "Id" repeats "id" in another case')
    }
  })

  it('reads escaped keys as their text and leaves repeats deeper than params alone', () => {
    expect(findRepeatedTopLevelKey('{"\\u0061":1, "a" :2}')).toBe('top-level key "a" appears more than once')
    expect(findRepeatedTopLevelKey('{ "p" : { "x" : {"y":1,"y":2} , "z":[{"q":1,"q":2}] } }', 'p')).toBeUndefined()
    const envelope = decodeEnvelope('{"jsonrpc":"2.0","id":"r","method":"GetTask","params":{"id":"t","metadata":{"a":1,"a":2}}}')
    expect(envelope).toEqual({ id: 'r', method: 'GetTask', params: { id: 't', metadata: { a: 2 } } })
  })

  it('finds in the admitting limits scan the same first repeat as findRepeatedTopLevelKey', () => {
    const bodies = [
      ...[0, 3, 16, 17, 40].flatMap((count) => {
        const before = count ? `${keys(count)},` : ''
        return [`{${before}"a":1,"a":2}`, `{"a":1,${before}"A":2}`, `{${before}"b":2}`, `{"params":{${before}"id":"x","Id":"y"},"id":1,"ID":2}`]
      }),
      '{"\\u0061":1, "a" :2}',
      ' { "params" : { "x" : {"y":1,"y":2} , "z":[{"q":1,"q":2}] } , "Params": 1 }',
      '{"params":[{"a":1,"a":2}],"x":{"params":{"b":1,"b":2}}}',
      '{"params":{"a":{"b":1},"b":[1,{"c":1}],"A":3},"params":{}}',
      '{"params":1,"params":{"a":1,"a":2}}',
      '{"x":{"a":1},"params":{"a":1},"a":2,"A":3}',
      '[{"a":1,"a":2}]',
      '{"params":{"s":"\\"a\\":1,","s2":"}{"},"p":"params"}',
    ]
    for (const body of bodies) {
      expect(checkBodyText(body, DEFAULT_REQUEST_LIMITS, 1, true, 'params')).toBe(body.startsWith('[') ? undefined : findRepeatedTopLevelKey(body, 'params'))
      expect(checkBodyText(body, DEFAULT_REQUEST_LIMITS, 1)).toBe(body.startsWith('[') ? undefined : findRepeatedTopLevelKey(body))
    }
  })

  it('refuses a repeated method as a parse error before anything else', () => {
    expect(refusal('{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"CancelTask","params":{}}')).toMatch(/^-32700 .*"method" appears more than once/)
  })
})
