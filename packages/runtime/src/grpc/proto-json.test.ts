import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { codecOf } from './codec.js'
import { descriptorModule } from './proto/generate.js'
import { timestampFrom, timestampTo } from './proto-json.js'

describe('ProtoJSON on the protobuf wire', () => {
  it('round-trips timestamps with the fraction digits they need, in UTC', () => {
    expect(timestampFrom('2026-01-02T03:04:05Z')).toEqual({ seconds: 1767323045, nanos: 0 })
    expect(timestampTo(timestampFrom('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05.678Z')
    expect(timestampTo(timestampFrom('2026-01-02T03:04:05.123456789Z'))).toBe('2026-01-02T03:04:05.123456789Z')
    expect(timestampTo(timestampFrom('2026-01-02T05:04:05.5+02:00'))).toBe('2026-01-02T03:04:05.500Z')
    expect(() => timestampFrom('yesterday')).toThrow(/RFC 3339/)
    // toISOString's form, read by position: the same as the general reading, rollover of a 30 February included.
    expect(timestampFrom('2026-01-02T03:04:05.678Z')).toEqual({ seconds: 1767323045, nanos: 678_000_000 })
    expect(timestampFrom('2026-02-30T00:00:00.001Z')).toEqual({ seconds: Date.parse('2026-03-02T00:00:00Z') / 1000, nanos: 1_000_000 })
    expect(() => timestampFrom('2026-13-02T03:04:05.678Z')).toThrow(/RFC 3339/)
  })

  it('carries Struct and Value as the JSON they hold, enums by name and bytes as base64', () => {
    const codec = codecOf('lf.a2a.v1.Message')
    const message = {
      messageId: 'm1',
      role: 'ROLE_AGENT',
      parts: [{ data: { n: 1.5, s: 'x', b: false, nothing: null, list: [1, 'two', [3], { four: 4 }] } }, { data: 'a bare string' }, { raw: 'aGVsbG8=', mediaType: 'text/plain' }],
      metadata: { nested: { deep: [true] } },
    }
    expect(codec.decode(codec.encode(message))).toEqual(message)
  })

  it('refuses an enum value the proto does not have, naming the ones it does', () => {
    expect(() => codecOf('lf.a2a.v1.Message').encode({ messageId: 'm', role: 'USER', parts: [] })).toThrow(/"USER" is not a Role \(ROLE_UNSPECIFIED, ROLE_USER, ROLE_AGENT\)/)
  })

  it('keeps the presence of a proto3 optional field set to zero', () => {
    const codec = codecOf('lf.a2a.v1.SendMessageRequest')
    const request = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }, configuration: { historyLength: 0 } }
    expect(codec.decode(codec.encode(request))).toEqual(request)
  })
})

describe('the generated descriptor', () => {
  it('is what generate.ts writes from the .proto files beside it (npm run generate:grpc -w packages/runtime)', () => {
    expect(readFileSync(new URL('./a2a-descriptor.ts', import.meta.url), 'utf8')).toBe(descriptorModule())
  })
})
