import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'

const echo = defineSkill({ id: 'echo', description: 'echo', handler: async (ctx) => void (await ctx.artifact({ parts: ctx.text })) })

describe('an exchange path given with a trailing slash', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ skills: [echo], path: '/agent/' })
  })
  afterAll(() => server.close())

  it('serves JSON-RPC at the URL its card advertises, with or without the slash', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { protocolBinding: string; url: string }[] }
    const advertised = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')!.url
    expect(advertised).toBe(`${server.url}/agent/`)
    for (const url of [advertised, `${server.url}/agent`]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer alice', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hi') } }),
      })
      expect(response.status, url).toBe(200)
      expect(((await response.json()) as { result: { task: { status: { state: string } } } }).result.task.status.state, url).toBe('TASK_STATE_COMPLETED')
    }
  })
})
