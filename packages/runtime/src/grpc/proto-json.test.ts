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

  it('writes the bytes protobufjs writes for the same message in protobuf form: enums as numbers, Struct and Value as their fields', () => {
    const status = {
      taskId: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp: '2026-01-02T03:04:05.123456789Z',
        message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ data: { n: 1.5, s: 'x', b: true, none: null, list: [1, [2]], o: {} } }] },
      },
      metadata: { k: ['v'] },
    }
    const codec = codecOf('lf.a2a.v1.StreamResponse')
    // As protobufjs's own encoder writes it from { state: 6, timestamp: { seconds, nanos }, data: { structValue: { fields: … } } }.
    const bytes =
      '1a92010a01741201631a7a080612690a016d20022a6222602a5e0a0e0a016e120911000000000000f83f0a080a017312031a01780a070a0162120220010a0a0a046e6f6e65120208000a240a046c697374121c321a0a0911000000000000f03f0a0d320b0a091100000000000000400a070a016f12022a001a0b08a5ebdcca0610959aef3a220e0a0c0a016b120732050a031a0176'
    expect(codec.encode({ statusUpdate: status }).toString('hex')).toBe(bytes)
    expect(codec.decode(Buffer.from(bytes, 'hex'))).toEqual({ statusUpdate: status })
  })

  it('refuses a Struct that is not a JSON object, and a Value nested past 100 levels', () => {
    const message = (metadata: unknown) => ({ messageId: 'm', role: 'ROLE_USER', parts: [], metadata })
    expect(() => codecOf('lf.a2a.v1.Message').encode(message(['a list']))).toThrow('a google.protobuf.Struct must be a JSON object')
    let deep: unknown = 1
    for (let i = 0; i < 101; i++) deep = [deep]
    expect(() => codecOf('lf.a2a.v1.Message').encode(message({ deep }))).toThrow('a google.protobuf.Value nests too deep')
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
