import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { seededRandom } from '../testing/seeded-random.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { MAX_LISTED_VIOLATIONS } from './a2a-error.js'
import { DEFAULT_REQUEST_LIMITS, requestLimits } from './limits.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})

/** `[[[…1…]]]` nested `depth` arrays deep, built as text (JSON.stringify of it would recurse). */
const nestedText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`
const AUTH = { Authorization: 'Bearer alice', 'A2A-Version': '1.0' }
const envelope = (method: string, paramsText: string, id: unknown = 1) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":${paramsText}}`
const sendText = (messageFields: string, outer = '') => envelope('SendMessage', `{"message":{"messageId":"m-${Math.random()}","role":"ROLE_USER",${messageFields}}${outer}}`)

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ skills: [echo] })
})
afterAll(() => server.close())

const violationsOf = (body: any) => body.error.data.find((d: any) => d.fieldViolations)?.fieldViolations ?? []

describe('request limits, checked before the params are parsed', () => {
  it.each([
    ['message metadata', sendText(`"parts":[{"text":"x"}],"metadata":{"deep":${nestedText(4000)}}`), 'params.message.metadata.deep'],
    ['a data part', sendText(`"parts":[{"data":${nestedText(4000)}}]`), 'params.message.parts[0].data'],
    ['params metadata', sendText(`"parts":[{"text":"x"}]`, `,"metadata":{"a":${nestedText(100)}}`), 'params.metadata.a'],
    ['GetTask params', envelope('GetTask', `{"id":"t","extra":${nestedText(4000)}}`), 'params.extra'],
  ])('refuses JSON nested deeper than 64 levels in %s with -32602 naming where', async (_where, body, field) => {
    const reply = await server.post(body, AUTH)
    expect(reply.body.error.code).toBe(-32602)
    expect(reply.body.error.message).toContain('nests deeper than 64 levels (maxJsonDepth)')
    expect(violationsOf(reply.body)[0].field.startsWith(field)).toBe(true)
  })

  it('takes nesting up to the limit', async () => {
    // params(1) > message(2) > parts(3) > part(4) > data: 60 more levels is 64.
    const task = (await server.post(sendText(`"parts":[{"data":${nestedText(59)}}]`), AUTH)).body.result?.task
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('refuses 80,000 empty parts in a small, fast error naming maxPartsPerMessage', async () => {
    const body = sendText(`"parts":[${Array(80_000).fill('{}').join(',')}]`)
    const started = performance.now()
    const reply = await server.post(body, AUTH)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(reply.body.error.code).toBe(-32602)
    expect(reply.body.error.message).toBe(`Invalid params: params.message.parts: holds more than ${DEFAULT_REQUEST_LIMITS.maxPartsPerMessage} parts (maxPartsPerMessage)`)
    expect(JSON.stringify(reply.body).length).toBeLessThan(2000)
  })

  it('refuses a body of more than 20,000 JSON values before parsing it, data parts included', async () => {
    for (const [values, field] of [
      [`[${Array(20_001).fill('1').join(',')}]`, 'params.message.parts[0].data'],
      [`[${Array(300_000).fill('{}').join(',')}]`, 'params.message.parts[0].data'],
    ] as const) {
      const started = performance.now()
      const reply = await server.post(sendText(`"parts":[{"data":${values}}]`), AUTH)
      expect(performance.now() - started).toBeLessThan(2000)
      expect(reply.body.error.message.startsWith(`Invalid params: ${field}`)).toBe(true)
      expect(reply.body.error.message).toContain('holds more than 20000 JSON values (maxJsonValues)')
    }
    const within = await server.post(sendText(`"parts":[{"data":[${Array(19_000).fill('1').join(',')}]}]`), AUTH)
    expect(within.body.result?.task.status.state, JSON.stringify(within.body).slice(0, 300)).toBe('TASK_STATE_COMPLETED')
  })

  it('lists at most a bounded number of field violations and counts the rest', async () => {
    const reply = await server.post(sendText(`"parts":[${Array(200).fill('{}').join(',')}]`), AUTH)
    expect(reply.body.error.code).toBe(-32602)
    expect(violationsOf(reply.body)).toHaveLength(MAX_LISTED_VIOLATIONS)
    const omitted = 200 - MAX_LISTED_VIOLATIONS
    expect(reply.body.error.message).toMatch(new RegExp(`^Invalid params: params\\.message\\.parts\\[0\\]: .* \\(and ${omitted} more violations\\)$`))
  })

  it('refuses a metadata object with more than 128 keys, wherever it is', async () => {
    const keys = JSON.stringify(Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`k${i}`, i])))
    for (const [body, field] of [
      [sendText(`"parts":[{"text":"x"}],"metadata":${keys}`), 'params.message.metadata'],
      [sendText(`"parts":[{"text":"x","metadata":${keys}}]`), 'params.message.parts[0].metadata'],
      [sendText(`"parts":[{"text":"x"}]`, `,"metadata":${keys}`), 'params.metadata'],
    ] as const) {
      const reply = await server.post(body, AUTH)
      expect(reply.body.error.message).toBe(`Invalid params: ${field}: has more than 128 keys (maxMetadataKeys)`)
    }
  })

  it('refuses ids over 256 characters in either field spelling, and lists over 64 items', async () => {
    const long = 'x'.repeat(257)
    const cases: [string, unknown, string][] = [
      ['GetTask', { id: long }, 'params.id'],
      ['SendMessage', { message: { ...userMessage('x'), messageId: long } }, 'params.message.messageId'],
      ['SendMessage', { message: { ...userMessage('x'), context_id: long } }, 'params.message.context_id'],
      ['ListTasks', { pageToken: long }, 'params.pageToken'],
      ['SendMessage', { message: { ...userMessage('x'), referenceTaskIds: ['ok', long] } }, 'params.message.referenceTaskIds[1]'],
    ]
    for (const [method, params, field] of cases) {
      const reply = await server.rpc(method, params)
      expect(reply.body.error.message, field).toBe(`Invalid params: ${field}: is 257 characters; ids are at most 256 (maxIdLength)`)
    }
    const many = await server.rpc('SendMessage', { message: { ...userMessage('x'), extensions: Array(65).fill('e') } })
    expect(many.body.error.message).toBe('Invalid params: params.message.extensions: holds more than 64 items (maxListItems)')
  })

  it("applies no field-name rule inside data parts: their shape is the app's", async () => {
    const data = { id: 'x'.repeat(300), parts: Array(300).fill(0), metadata: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])) }
    const reply = await server.rpc('SendMessage', { message: { ...userMessage('x'), parts: [{ data }] } })
    expect(reply.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  })

  it('refuses an envelope whose id or method is longer than any client needs with -32600', async () => {
    const longId = await server.post(envelope('GetTask', '{"id":"t"}', 'i'.repeat(257)), AUTH)
    expect(longId.body).toMatchObject({ id: null, error: { code: -32600, message: '"id" is 257 characters; a request id is at most 256 (maxIdLength)' } })
    const longMethod = await server.post(envelope('M'.repeat(100_000), '{}'), AUTH)
    expect(longMethod.body).toMatchObject({ id: 1, error: { code: -32600, message: '"method" is 100000 characters; no method name is longer than 64' } })
  })

  it('takes limits from the exchange options, and refuses a limit that is not a positive whole number', async () => {
    const strict = await startTestServer({ skills: [echo], requestLimits: { maxPartsPerMessage: 2 } })
    try {
      const reply = await strict.rpc('SendMessage', { message: { ...userMessage('x'), parts: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] } })
      expect(reply.body.error.message).toContain('params.message.parts: holds more than 2 parts (maxPartsPerMessage)')
    } finally {
      await strict.close()
    }
    expect(() => requestLimits({ maxJsonDepth: 2.5 })).toThrow('requestLimits.maxJsonDepth must be a positive whole number, got 2.5')
    expect(() => requestLimits({ maxDepth: 3 } as never)).toThrow('requestLimits.maxDepth is not a limit; the limits are maxJsonDepth, maxPartsPerMessage')
  })
})

describe('strings every store keeps alike', () => {
  const NUL = 'a\u0000b'
  const LONE = 'a\ud800b'
  it.each([
    ['text', { message: { ...userMessage(NUL) } }, 'params.message.parts[0].text', 'U+0000'],
    ['text', { message: { ...userMessage(LONE) } }, 'params.message.parts[0].text', 'lone UTF-16 surrogate'],
    ['a metadata key', { message: { ...userMessage('x'), metadata: { [NUL]: 1 } } }, 'params.message.metadata["a\\u0000b"]', 'its key contains U+0000'],
    ['a metadata value', { message: { ...userMessage('x'), metadata: { note: LONE } } }, 'params.message.metadata.note', 'lone UTF-16 surrogate'],
    ['messageId', { message: { ...userMessage('x'), messageId: NUL } }, 'params.message.messageId', 'U+0000'],
    ['contextId', { message: { ...userMessage('x'), contextId: LONE } }, 'params.message.contextId', 'lone UTF-16 surrogate'],
    [
      'a data part',
      { message: { ...userMessage('x'), parts: [{ data: { deep: [{ [LONE]: NUL }] } }] } },
      'params.message.parts[0].data.deep[0]["a\\ud800b"]',
      'its key contains a lone',
    ],
  ])('refuses %s holding U+0000 or a lone surrogate with -32602 naming the field', async (_what, params, field, why) => {
    const reply = await server.rpc('SendMessage', params)
    expect(reply.body.error.code).toBe(-32602)
    expect(violationsOf(reply.body)[0].field).toBe(field)
    expect(violationsOf(reply.body)[0].description).toContain(why)
  })

  it('refuses them in the ids of every other method too', async () => {
    for (const [method, params] of [
      ['GetTask', { id: 'a\u0000' }],
      ['CancelTask', { id: '\udc00' }],
      ['ListTasks', { contextId: '\u0000' }],
      ['GetTaskPushNotificationConfig', { taskId: 't', id: '\ud800' }],
    ] as const) {
      const reply = await server.rpc(method, params)
      expect(reply.body.error.code, method).toBe(-32602)
    }
  })

  it('keeps paired surrogates (emoji) and other control characters', async () => {
    const reply = await server.rpc('SendMessage', { message: userMessage('note 😀 \u0001 tab\t') })
    expect(reply.body.result.task.artifacts[0].parts[0].text).toBe('note 😀 \u0001 tab\t')
  })
})

describe('a body that is no JSON value', () => {
  it.each(['"a":1,"b":2', '1,"a":{}', '}"a":1,"b"'])('answers %s with -32700, as JSON.parse refuses it', async (body) => {
    const reply = await server.post(body, AUTH)
    expect(reply.status).toBe(200)
    expect(reply.body.error.code).toBe(-32700)
  })
})

describe('fuzzed requests', () => {
  // A seeded generator, so a failure replays: random shapes around the limits and bad strings.
  const random = seededRandom(12)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const strings = ['', 'x', 'a\u0000', '\ud800', '\udfff\ud800', '😀', 'y'.repeat(300), '__proto__', 'constructor']
  const value = (depth: number): unknown => {
    const roll = random()
    if (depth > 70 || roll < 0.3) return pick([1, -0.5, true, null, ...strings])
    if (roll < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))
    if (roll < 0.7) return nestedList(Math.floor(random() * 120))
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick(strings), value(depth + 1)]))
  }
  const nestedList = (depth: number): unknown => {
    let v: unknown = 1
    for (let i = 0; i < depth; i++) v = [v]
    return v
  }
  const params = (): unknown => {
    const message: Record<string, unknown> = { ...userMessage(pick(strings)), metadata: value(0) }
    if (random() < 0.3) message.parts = Array.from({ length: pick([0, 1, 300]) }, () => pick([{ text: pick(strings) }, { data: value(0) }, {}]))
    if (random() < 0.2) message.messageId = pick(strings)
    return pick([{ message }, { message, metadata: value(0) }, { id: pick(strings) }, value(0)])
  }

  it('answers 300 of them with a result or a -32602/-32600, never an internal error', async () => {
    for (let i = 0; i < 300; i++) {
      const method = pick(['SendMessage', 'GetTask', 'ListTasks', 'CancelTask'])
      const sent = params()
      const reply = await server.post(JSON.stringify({ jsonrpc: '2.0', id: i, method, params: sent }), AUTH)
      const code = reply.body.error?.code
      if (code !== undefined && ![-32602, -32600, -32001, -32002].includes(code)) {
        throw new Error(`${method} ${JSON.stringify(sent).slice(0, 300)} answered ${JSON.stringify(reply.body.error).slice(0, 500)}`)
      }
    }
  })
})
