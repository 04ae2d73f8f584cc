import { afterAll, beforeAll, expect, it } from 'vitest'
import { mintInboxLink, prismaInboxTokens } from '@a2a-agent/runtime/inbox'
import { testOwners } from './owners.gen.js'
import { createTestApp, type TestApp } from './support.js'

let app: TestApp
beforeAll(async () => {
  app = await createTestApp()
})
afterAll(() => app?.close())

/** A session cookie for `owner`, from a one-time link stored in the app's database (what `a2a inbox-link` does). */
async function signIn(owner: string): Promise<string> {
  const { token } = await mintInboxLink(prismaInboxTokens(app.db), { owner })
  const response = await fetch(`${app.url}/inbox/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `token=${token}`,
    redirect: 'manual',
  })
  expect(response.status).toBe(303)
  return response.headers.get('set-cookie')!.split(';')[0]!
}

it('serves each person their own agents’ tasks at /inbox, with the report’s web page; another person gets 404', async () => {
  const response = await fetch(`${app.url}/a2a/reports`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${app.tokens.alice}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'What is overdue?' }], metadata: { skill: 'overdue' } } },
    }),
  })
  const { task } = ((await response.json()) as { result: { task: { id: string; artifacts?: { artifactId: string }[] } } }).result
  const alice = await signIn(testOwners.alice)
  const bob = await signIn(testOwners.bob)
  const page = await fetch(`${app.url}/inbox`, { headers: { cookie: alice } })
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain(`/inbox/tasks/${task.id}`)
  expect(html).toContain('Invoice reports')
  for (const artifact of task.artifacts ?? []) {
    expect((await fetch(`${app.url}/inbox/tasks/${task.id}/artifacts/${artifact.artifactId}`, { headers: { cookie: alice } })).status).toBe(200)
    expect((await fetch(`${app.url}/inbox/tasks/${task.id}/artifacts/${artifact.artifactId}`, { headers: { cookie: bob } })).status).toBe(404)
  }
  expect(await (await fetch(`${app.url}/inbox`, { headers: { cookie: bob } })).text()).not.toContain(task.id)
  expect((await fetch(`${app.url}/inbox/tasks/${task.id}`, { headers: { cookie: bob } })).status).toBe(404)
  expect((await fetch(`${app.url}/inbox`)).status).toBe(401)
})
