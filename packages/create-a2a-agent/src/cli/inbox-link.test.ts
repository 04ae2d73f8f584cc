import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createExchange, defineSkill } from '@a2a-agent/runtime'
import { createInbox, prismaInboxTokens } from '@a2a-agent/runtime/inbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb } from '../../../../examples/invoices/src/db.js'
import { a2aInInvoices as a2a, migratedInvoicesDb } from './invoices-app.js'

describe('a2a inbox-link', () => {
  let database: ReturnType<typeof migratedInvoicesDb>
  beforeAll(() => {
    database = migratedInvoicesDb('a2a-inbox-link-')
  })
  afterAll(() => database?.remove())

  it('prints a link that the app, on the same database, takes once', async () => {
    const db = createDb()
    const exchange = createExchange({
      skills: [defineSkill({ id: 'ask', description: 'asks', handler: (ctx) => ctx.requireInput('ok?') })],
      resolvePrincipal: () => null,
      card: { name: 'Test', description: 'test', version: '1.0.0' },
    })
    const inbox = createInbox(exchange, { tokens: prismaInboxTokens(db) })
    const server = createServer((request, response) => inbox.middleware(request, response, () => response.writeHead(404).end()))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const printed = await a2a('inbox-link', '--user', 'alice', '--tenant', 'acme', '--url', base)
      expect(printed.code, printed.stderr).toBe(0)
      expect(printed.stderr).toContain('works once')
      const link = new URL(printed.stdout.trim())
      expect(`${link.origin}${link.pathname}`).toBe(`${base}/inbox/sign-in`)
      const token = link.searchParams.get('token')!
      const rows = await db.a2AInboxToken.findMany({})
      expect(rows).toMatchObject([{ kind: 'link', owner: 'alice', tenant: 'acme', usedAt: null }])
      expect(JSON.stringify(rows)).not.toContain(token)
      const signIn = () =>
        fetch(`${base}/inbox/sign-in`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${token}`, redirect: 'manual' })
      const first = await signIn()
      expect(first.status).toBe(303)
      expect(first.headers.get('set-cookie')).toMatch(/^a2a_inbox=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/)
      expect((await signIn()).status).toBe(400)
    } finally {
      server.close()
      await exchange.shutdown()
      await db.$disconnect()
    }
  })

  it('refuses an empty user and a lifetime out of range, naming the flag', async () => {
    const empty = await a2a('inbox-link', '--user', ' ')
    expect([empty.code, empty.stderr]).toEqual([1, expect.stringContaining('--user is empty')])
    const long = await a2a('inbox-link', '--user', 'alice', '--minutes', '99999')
    expect([long.code, long.stderr]).toEqual([1, expect.stringContaining('--minutes 99999')])
  })
})
