import { mkdir, readFile, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createParser } from 'eventsource-parser'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgentHost, type AgentHost } from '../agents/agent-host.js'
import type { Principal } from '../core/principal.js'
import { a2aListener } from '../host/a2a-listener.js'
import { createHttpServer } from '../http/http-server.js'
import { defineSkill } from '../skills/skill.js'
import { gate } from '../testing/gate.js'
import { launchChromium } from './browser.js'
import { createInbox, type Inbox } from './inbox.js'
import { MemoryInboxTokens } from './tokens.js'

// Each answered task's run waits here until the test opens its gate, so a page can be seen
// "working" and then watched completing.
const gates = new Map<string, ReturnType<typeof gate>>()
const gateOf = (taskId: string) => gates.get(taskId) ?? (gates.set(taskId, gate()), gates.get(taskId)!)

const approve = defineSkill({
  id: 'approve',
  name: 'Approve payment',
  description: 'Asks a person to approve a payment, then records the decision.',
  handler: async (ctx) => {
    if (ctx.history.filter((m) => m.role === 'ROLE_USER').length === 1) return ctx.requireInput(`Approve the payment of ${ctx.text}?`)
    await ctx.working()
    await gateOf(ctx.taskId).opened
    await ctx.artifact({ name: 'Payment decision', parts: `Decision: ${ctx.text}` })
    await ctx.artifact({
      name: 'decision.csv',
      parts: [{ raw: Buffer.from(`task,decision\n${ctx.taskId},${ctx.text}\n`).toString('base64'), mediaType: 'text/csv', filename: 'decision.csv' }],
    })
    await ctx.complete(`Recorded: ${ctx.text}`)
  },
})

const KEYS: Record<string, Principal> = {
  'key-alice': { owner: 'alice' },
  'key-bob': { owner: 'bob' },
  'key-alice-acme': { owner: 'alice', tenant: 'acme' },
}

let host: AgentHost
let inbox: Inbox
let base: string
let browser: Browser
let clock = Date.now()
const server = createHttpServer((request, response) => listener(request, response))
let listener: Parameters<typeof createHttpServer>[0]

beforeAll(async () => {
  host = createAgentHost({
    resolvePrincipal: (request) => KEYS[(request.headers.authorization ?? '').replace(/^Bearer /, '')] ?? null,
    agents: [{ id: 'payments', skills: [approve], card: { name: 'Payments agent', description: 'Pays invoices once a person approves.', version: '1.0.0' } }],
  })
  inbox = createInbox(host, { tokens: new MemoryInboxTokens(), now: () => new Date(clock), keepAliveMs: 1000 })
  listener = a2aListener(host, (request, response) => inbox.middleware(request, response, () => response.writeHead(404).end()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  inbox?.close()
  await browser?.close()
  await host?.shutdown({ timeoutMs: 1000 })
  for (const { open } of gates.values()) open()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}, 60_000)

async function a2a(key: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(`${base}/a2a/payments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return response.json()
}

let sent = 0
/** A new task of `key`'s owner, waiting on its question. */
async function waitingTask(key: string, text: string): Promise<any> {
  const reply = await a2a(key, 'SendMessage', { message: { messageId: `m-${++sent}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }], metadata: { skill: 'approve' } } })
  expect(reply.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED')
  return reply.result.task
}

/** Answers over A2A, as the calling agent would. */
const answerOverA2a = (key: string, taskId: string, text: string, configuration = {}) =>
  a2a(key, 'SendMessage', { message: { messageId: `a-${++sent}-${Date.now()}`, role: 'ROLE_USER', taskId, parts: [{ text }] }, configuration })

/** A task answered and completed over A2A, with its two artifacts. */
async function completedTask(key: string, text: string): Promise<any> {
  const task = await waitingTask(key, text)
  gateOf(task.id).open()
  const reply = await answerOverA2a(key, task.id, 'approved')
  expect(reply.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  return reply.result.task
}

/** A fresh browser profile signed in through a one-time link. */
async function signedIn(owner: string, tenant?: string): Promise<{ context: BrowserContext; page: Page; cookie: string; csrf: string }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 760 } })
  const page = await context.newPage()
  const { url } = await inbox.createLink({ owner, ...(tenant ? { tenant } : {}), baseUrl: base })
  await page.goto(url)
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), eventually).toBe('Sign in to your inbox')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${base}/inbox`)
  const cookies = await context.cookies(base)
  const csrf = cookies.find((cookie) => cookie.name === 'a2a_inbox_csrf')!.value
  const session = cookies.find((cookie) => cookie.name === 'a2a_inbox')!
  expect(session.httpOnly).toBe(true)
  expect(session.sameSite).toBe('Lax')
  return { context, page, cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '), csrf }
}

/** The events of the inbox's live feed as a session sees them. */
async function openFeed(cookie: string, query = ''): Promise<{ status: number; events: { event?: string; data: any }[]; close: () => void }> {
  const abort = new AbortController()
  const response = await fetch(`${base}/inbox/events${query}`, { headers: { cookie }, signal: abort.signal })
  const events: { event?: string; data: any }[] = []
  if (response.status === 200) {
    const parser = createParser({ onEvent: (event) => void events.push({ event: event.event, data: JSON.parse(event.data) }) })
    void (async () => {
      const decoder = new TextDecoder()
      try {
        for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
      } catch {
        // closed by the test
      }
    })()
  }
  return { status: response.status, events, close: () => abort.abort() }
}

// A machine under load (CI shares its cores) is slow, never wrong: waits are generous, nothing is timed.
const eventually = { timeout: 30_000 }

const getTask = async (key: string, id: string) => (await a2a(key, 'GetTask', { id })).result

describe('the inbox in Chromium', { timeout: 180_000 }, () => {
  it('signs in with a link, shows the waiting question, answers it, and the task completes live', async () => {
    const earlier = await completedTask('key-alice', '310 EUR to Globex')
    const task = await waitingTask('key-alice', '1,200 EUR to ACME')
    const { context, page } = await signedIn('alice')
    const waiting = page.getByRole('region', { name: 'Waiting for you' })
    await expect.poll(() => waiting.getByText('Approve the payment of 1,200 EUR to ACME?').count(), eventually).toBe(1)
    await expect.poll(() => page.getByRole('region', { name: 'Recent tasks' }).locator(`#task-${earlier.id}`).count(), eventually).toBe(1)

    const picture = await page.screenshot({ fullPage: true })
    expect(picture.subarray(1, 4).toString()).toBe('PNG')
    await writeFile(join(tmpdir(), 'a2a-inbox.png'), picture)
    if (process.env.A2A_UPDATE_SCREENSHOT) {
      await mkdir(new URL('../../../../docs/', import.meta.url), { recursive: true })
      await writeFile(new URL('../../../../docs/inbox.png', import.meta.url), picture)
    }

    // By keyboard: the labelled field, Tab to its button, Enter sends.
    let navigations = 0
    await page.locator(`#task-${task.id}`).getByLabel('Your answer').fill('Yes, pay it')
    await page.locator(`#task-${task.id}`).getByLabel('Your answer').focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Send answer')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${base}/inbox/tasks/${task.id}`)
    await expect.poll(() => page.locator('#task-detail').getAttribute('data-state'), eventually).toBe('TASK_STATE_WORKING')
    page.on('framenavigated', () => navigations++)

    // The same path as an A2A answer: the task's history holds the person's answer, in its run.
    const working = await getTask('key-alice', task.id)
    expect(working.history.map((m: any) => m.parts[0].text)).toEqual(['1,200 EUR to ACME', 'Approve the payment of 1,200 EUR to ACME?', 'Yes, pay it'])
    gateOf(task.id).open()
    await expect.poll(() => page.locator('#task-detail').getAttribute('data-state'), eventually).toBe('TASK_STATE_COMPLETED')
    expect(navigations).toBe(0) // live, not reloaded
    await expect.poll(() => page.locator('#live').textContent(), eventually).toContain('Completed')
    expect(await page.getByText('Recorded: Yes, pay it').count()).toBeGreaterThan(0)

    // Its work products: each carries its page's URL to the A2A caller too; text shown there, the
    // file downloaded with its media type.
    const [decision] = (await getTask('key-alice', task.id)).artifacts
    expect(decision.metadata.webUrl).toBe(`${base}/inbox/tasks/${task.id}/artifacts/${decision.artifactId}`)
    await page.getByRole('link', { name: 'Payment decision' }).click()
    expect(page.url()).toBe(decision.metadata.webUrl)
    await expect.poll(() => page.locator('pre').textContent(), eventually).toBe('Decision: Yes, pay it')
    await page.goBack()
    await page.getByRole('link', { name: 'decision.csv' }).click()
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download decision.csv' }).click()])
    expect(download.suggestedFilename()).toBe('decision.csv')
    expect(await readFile((await download.path())!, 'utf8')).toBe(`task,decision\n${task.id},Yes, pay it\n`)
    const file = await page.request.get(download.url())
    expect(file.headers()['content-type']).toBe('text/csv')
    await context.close()
  })

  it('refuses a link used once already, and an expired one', async () => {
    const { url } = await inbox.createLink({ owner: 'alice', baseUrl: base })
    const first = await browser.newContext()
    const page = await first.newPage()
    await page.goto(url)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${base}/inbox`)
    const second = await browser.newContext()
    const again = await second.newPage()
    await again.goto(url)
    const [refused] = await Promise.all([again.waitForResponse((response) => response.url().endsWith('/inbox/sign-in')), again.getByRole('button', { name: 'Sign in' }).click()])
    expect(refused.status()).toBe(400)
    await expect.poll(() => again.getByRole('heading', { level: 1 }).textContent(), eventually).toBe('This sign-in link does not work')
    expect((await second.cookies(base)).some((cookie) => cookie.name === 'a2a_inbox')).toBe(false)

    const { url: late } = await inbox.createLink({ owner: 'alice', baseUrl: base })
    clock += 16 * 60_000 // links last 15 minutes
    await again.goto(late)
    const [expired] = await Promise.all([again.waitForResponse((response) => response.url().endsWith('/inbox/sign-in')), again.getByRole('button', { name: 'Sign in' }).click()])
    expect(expired.status()).toBe(400)
    await again.goto(`${base}/inbox`)
    await expect.poll(() => again.getByRole('heading', { level: 1 }).textContent(), eventually).toBe('Sign in to your inbox')
    await first.close()
    await second.close()
  })

  it('refuses a form posted without its CSRF token, or from another origin, and signs out', async () => {
    const task = await waitingTask('key-alice', '90 EUR to Initech')
    const { context, page, cookie, csrf } = await signedIn('alice')
    const status = await page.evaluate(async (url) => {
      const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'text=sneaky&messageId=0123456789ab' })
      return response.status
    }, `${base}/inbox/tasks/${task.id}/answer`)
    expect(status).toBe(403)
    const forged = await fetch(`${base}/inbox/tasks/${task.id}/answer`, {
      method: 'POST',
      headers: { cookie, origin: 'http://127.0.0.2:1', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `csrf=${csrf}&text=sneaky&messageId=0123456789ab`,
      redirect: 'manual',
    })
    expect(forged.status).toBe(403)
    expect((await getTask('key-alice', task.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), eventually).toBe('Signed out')
    expect((await fetch(`${base}/inbox`, { headers: { cookie } })).status).toBe(401) // the old cookie signs nobody in
    await context.close()
  })

  it('shows no other owner’s or tenant’s task: absent from the list, 404 by every URL, never on the feed', async () => {
    const people = [
      { key: 'key-alice', owner: 'alice' },
      { key: 'key-bob', owner: 'bob' },
      { key: 'key-alice-acme', owner: 'alice', tenant: 'acme' },
    ]
    const sessions: ((typeof people)[number] & Awaited<ReturnType<typeof signedIn>> & { waiting: any; done: any })[] = []
    for (const person of people) {
      const waiting = await waitingTask(person.key, `probe for ${person.owner} ${person.tenant ?? ''}`)
      const done = await completedTask(person.key, `done for ${person.owner} ${person.tenant ?? ''}`)
      sessions.push({ ...person, ...(await signedIn(person.owner, person.tenant)), waiting, done })
    }
    for (const viewer of sessions) {
      const html = await (await fetch(`${base}/inbox`, { headers: { cookie: viewer.cookie } })).text()
      expect(html).toContain(viewer.waiting.id)
      for (const other of sessions.filter((candidate) => candidate !== viewer)) {
        for (const id of [other.waiting.id, other.done.id]) {
          expect(html).not.toContain(id)
          const urls = [`/inbox/tasks/${id}`, `/inbox/tasks/${id}/artifacts/x`, `/inbox/tasks/${id}/artifacts/x/0`]
          for (const artifact of other.done.artifacts) urls.push(`/inbox/tasks/${id}/artifacts/${artifact.artifactId}`, `/inbox/tasks/${id}/artifacts/${artifact.artifactId}/0`)
          for (const url of urls) expect([url, (await fetch(`${base}${url}`, { headers: { cookie: viewer.cookie } })).status]).toEqual([url, 404])
          const answer = await fetch(`${base}/inbox/tasks/${id}/answer`, {
            method: 'POST',
            headers: { cookie: viewer.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
            body: `csrf=${viewer.csrf}&text=mine&messageId=0123456789ab`,
            redirect: 'manual',
          })
          expect(answer.status).toBe(404)
        }
      }
    }
    // The feed: each person's list and a foreign task's page feed hear only their own tasks.
    // From the start of the test: each feed first sends what changed since, its own tasks only.
    const since = `since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`
    const feeds = await Promise.all(sessions.map((viewer) => openFeed(viewer.cookie, `?${since}`)))
    const foreign = await openFeed(sessions[0]!.cookie, `?${since}&task=${sessions[1]!.waiting.id}`)
    for (const person of sessions) {
      gateOf(person.waiting.id).open()
      await answerOverA2a(person.key, person.waiting.id, 'ok')
    }
    for (const [index, feed] of feeds.entries()) {
      await expect.poll(() => feed.events.some((event) => event.data.id === sessions[index]!.waiting.id && event.data.state === 'TASK_STATE_COMPLETED'), eventually).toBe(true)
    }
    for (const [index, feed] of feeds.entries()) {
      // Everything the person may see over A2A (earlier cases made more of alice's tasks), nothing else.
      const mine = new Set((await a2a(sessions[index]!.key, 'ListTasks', { pageSize: 100 })).result.tasks.map((task: any) => task.id))
      for (const other of sessions.filter((candidate) => candidate !== sessions[index])) expect(mine.has(other.waiting.id)).toBe(false)
      expect(feed.events.some((event) => event.data.id === sessions[index]!.done.id)).toBe(true) // caught up
      expect(feed.events.filter((event) => !mine.has(event.data.id))).toEqual([])
      feed.close()
    }
    expect(foreign.events).toEqual([])
    foreign.close()
    for (const viewer of sessions) await viewer.context.close()
  })

  it('takes the person’s and the calling agent’s answers to one question together: both land, in order, nothing fails', async () => {
    const task = await waitingTask('key-alice', '5,000 EUR to Umbrella')
    const { context, page } = await signedIn('alice')
    const field = page.locator(`#task-${task.id}`).getByLabel('Your answer')
    await field.fill('Approved by Alice')
    const person = Promise.all([page.waitForURL(`${base}/inbox/tasks/${task.id}`), page.locator(`#task-${task.id}`).getByRole('button', { name: 'Send answer' }).click()])
    const agent = answerOverA2a('key-alice', task.id, 'Approved by the ERP')
    await person
    // Both answers are in before the run the first one resumed may finish.
    await expect.poll(async () => (await getTask('key-alice', task.id)).history.length, eventually).toBe(4)
    gateOf(task.id).open()
    const reply = await agent
    expect(reply.error).toBeUndefined()
    expect(reply.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    await expect.poll(() => page.locator('#task-detail').getAttribute('data-state'), eventually).toBe('TASK_STATE_COMPLETED')
    expect(await page.getByRole('alert').count()).toBe(0)
    const texts = (await getTask('key-alice', task.id)).history.map((m: any) => m.parts[0].text)
    expect(texts.slice(0, 2)).toEqual(['5,000 EUR to Umbrella', 'Approve the payment of 5,000 EUR to Umbrella?'])
    expect(texts.slice(2, 4).sort()).toEqual(['Approved by Alice', 'Approved by the ERP'])
    expect(texts[4]).toMatch(/^Recorded: Approved by (Alice|the ERP)$/)
    await context.close()
  })
})
