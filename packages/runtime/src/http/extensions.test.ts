import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

const echo = defineSkill({ id: 'echo', description: 'echo', handler: async (ctx) => ctx.reply(ctx.text) })
const GEO = 'https://ext.example/geo/v1'
const TRACE = 'https://ext.example/trace/v1'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ check: wireCheck, skills: [echo], extensions: [{ uri: GEO, required: true }, { uri: TRACE }] })
})
afterAll(() => server.close())

const send = (extensions?: string) => server.rpc('SendMessage', { message: userMessage('hi') }, extensions === undefined ? {} : { headers: { 'A2A-Extensions': extensions } })

describe('A2A-Extensions', () => {
  it('refuses a request that does not list a required extension with -32008 naming it', async () => {
    for (const header of [undefined, TRACE, `${GEO}x`]) {
      const reply = await send(header)
      expect(reply.body.error).toMatchObject({
        code: -32008,
        data: [{ reason: 'EXTENSION_SUPPORT_REQUIRED', domain: 'a2a-protocol.org', metadata: { extensions: GEO } }],
      })
      expect(reply.body.error.message).toContain(`A2A-Extensions: ${GEO}`)
    }
    expect((await server.result('ListTasks', {}, { headers: { 'A2A-Extensions': GEO } })).totalSize).toBe(0)
  })

  it('echoes the extensions it activates, and only those it supports', async () => {
    const reply = await send(` ${TRACE} , https://unknown.example/x,${GEO}`)
    expect(reply.body.result.message.parts).toEqual([{ text: 'hi' }])
    expect(reply.headers.get('a2a-extensions')).toBe(`${GEO}, ${TRACE}`)
    const only = await send(GEO)
    expect(only.headers.get('a2a-extensions')).toBe(GEO)
  })

  it('reads the list across repeated header lines', async () => {
    const headers = new Headers({ Authorization: 'Bearer alice', 'A2A-Version': '1.0', 'Content-Type': 'application/json' })
    headers.append('A2A-Extensions', TRACE)
    headers.append('A2A-Extensions', GEO)
    const response = await fetch(`${server.url}/a2a`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }),
    })
    expect(((await response.json()) as any).error.code).toBe(-32001)
    expect(response.headers.get('a2a-extensions')).toBe(`${GEO}, ${TRACE}`)
  })
})
