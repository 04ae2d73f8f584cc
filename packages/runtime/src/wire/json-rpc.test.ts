import { describe, expect, it } from 'vitest'
import { decodeEnvelope, EnvelopeError } from './json-rpc.js'
import { checkBodyText, DEFAULT_REQUEST_LIMITS } from './limits.js'

/** The first repeated key the admitting scan finds, among the top-level keys and (with `nested`) that member's keys. */
const repeatIn = (body: string, nested?: string) => checkBodyText(body, DEFAULT_REQUEST_LIMITS, 1, true, nested)

/** What decoding `body` as a JSON-RPC envelope refuses, after the admitting scan, as the server does. */
const refusal = (body: string): string | undefined => {
  try {
    decodeEnvelope(body, repeatIn(body, 'params'))
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
      expect(repeatIn(`{${before}"a":1,"a":2}`)).toBe('top-level key "a" appears more than once')
      expect(repeatIn(`{${before}"a":1,"A":2}`)).toBe('top-level key "A" repeats "a" in another case')
      expect(repeatIn(`{${before}"a":1,"b":2}`)).toBeUndefined()
      expect(repeatIn(`{"a":1,${before}"A":2}`)).toBe('top-level key "A" repeats "a" in another case')
      expect(repeatIn(`{"params":{${before}"id":"x","Id":"y"},"id":1,"ID":2}`, 'params')).toBe('key of params "Id" repeats "id" in another case')
      expect(repeatIn(`{"params":{${before}"id":"x","Id":"y"},"id":1,"ID":2}`)).toBe('top-level key "ID" repeats "id" in another case')
      expect(refusal(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{${before}"id":"x","Id":"y"}}`)).toBe(
        '-32700 Invalid JSON payload: key of params "Id" repeats "id" in another case',
      )
    }
  })

  it('reads escaped keys as their text, skips strings that look like keys, and leaves repeats deeper than params alone', () => {
    expect(repeatIn('{"\\u0061":1, "a" :2}')).toBe('top-level key "a" appears more than once')
    expect(repeatIn('{ "p" : { "x" : {"y":1,"y":2} , "z":[{"q":1,"q":2}] } }', 'p')).toBeUndefined()
    expect(repeatIn('{"params":[{"a":1,"a":2}],"x":{"params":{"b":1,"b":2}}}', 'params')).toBeUndefined()
    expect(repeatIn('{"params":{"s":"\\"a\\":1,","s2":"}{"},"p":"params"}', 'params')).toBeUndefined()
    expect(repeatIn('[{"a":1,"a":2}]', 'params')).toBeUndefined()
    const envelope = decodeEnvelope('{"jsonrpc":"2.0","id":"r","method":"GetTask","params":{"id":"t","metadata":{"a":1,"a":2}}}', undefined)
    expect(envelope).toEqual({ id: 'r', method: 'GetTask', params: { id: 't', metadata: { a: 2 } } })
  })

  it('answers the first repeat in the body, whichever level it is at', () => {
    expect(repeatIn(' { "params" : { "x" : {"y":1,"y":2} , "z":[{"q":1,"q":2}] } , "Params": 1 }', 'params')).toBe('top-level key "Params" repeats "params" in another case')
    expect(repeatIn('{"params":{"a":{"b":1},"b":[1,{"c":1}],"A":3},"params":{}}', 'params')).toBe('key of params "A" repeats "a" in another case')
    expect(repeatIn('{"params":{"a":{"b":1},"b":[1,{"c":1}],"A":3},"params":{}}')).toBe('top-level key "params" appears more than once')
    expect(repeatIn('{"params":1,"params":{"a":1,"a":2}}', 'params')).toBe('top-level key "params" appears more than once')
    expect(repeatIn('{"x":{"a":1},"params":{"a":1},"a":2,"A":3}', 'params')).toBe('top-level key "A" repeats "a" in another case')
  })

  it('refuses a repeated method as a parse error before anything else', () => {
    expect(refusal('{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"CancelTask","params":{}}')).toMatch(/^-32700 .*"method" appears more than once/)
  })
})
