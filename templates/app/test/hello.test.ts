import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './support.js'

let app: TestApp

beforeAll(async () => {
  app = await createTestApp()
})

afterAll(async () => {
  await app?.close()
})

async function send(text: string, token: string) {
  const response = await fetch(app.a2aUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skill: 'hello' } } },
    }),
  })
  return { status: response.status, body: (await response.json()) as any }
}

describe('the hello skill', () => {
  it('greets the caller by the text sent', async () => {
    const { body } = await send('Ada', app.tokens.alice)
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(body.result.task.artifacts[0].parts[0].text).toBe('Hello, Ada!')
  })

  it('refuses an unknown key with 401', async () => {
    expect((await send('Ada', 'key-nobody')).status).toBe(401)
  })
})

describe('the app', () => {
  it('names no framework on any response (no X-Powered-By)', async () => {
    for (const [url, method] of [
      [app.a2aUrl, 'POST'],
      [`${app.url}/.well-known/agent-card.json`, 'GET'],
      [`${app.url}/mcp`, 'POST'],
      [`${app.url}/no-such-page`, 'GET'],
    ]) {
      const response = await fetch(url!, { method })
      await response.arrayBuffer()
      expect(response.headers.get('x-powered-by'), url).toBeNull()
    }
  })
})
