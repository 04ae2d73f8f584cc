import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { createExchange } from '../exchange/exchange.js'
import { defineSkill } from '../skills/skill.js'
import { createInbox } from './inbox.js'

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

it('ends every open live feed when the exchange shuts down, so the server can close', async () => {
  const exchange = createExchange({
    skills: [defineSkill({ id: 'ask', description: 'asks', handler: (ctx) => ctx.requireInput('ok?') })],
    resolvePrincipal: () => null,
    card: { name: 'Test', description: 'test', version: '1.0.0' },
  })
  const inbox = createInbox(exchange)
  const server = createServer((request, response) => inbox.middleware(request, response, () => response.writeHead(404).end()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const token = new URL((await inbox.createLink({ owner: 'alice', baseUrl: base })).url).searchParams.get('token')!
  const signIn = await fetch(`${base}/inbox/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `token=${token}`,
    redirect: 'manual',
  })
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
  const feed = await fetch(`${base}/inbox/events`, { headers: { cookie } })
  expect(feed.status).toBe(200)
  expect(feed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  const read = feed.text()
  await exchange.shutdown()
  expect(await read).toBe(': inbox\n\n')
})
