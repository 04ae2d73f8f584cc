import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { createExchange, defineSkill } from '@a2a-agent/runtime'
import { createInbox, prismaInboxTokens } from '@a2a-agent/runtime/inbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb } from '../../../../examples/invoices/src/db.js'
import { runA2a } from './index.js'
import { captureIo } from './test-io.js'

// The invoices example is the app: its src/db.ts, on a temporary copy of its migrated database.
const app = fileURLToPath(new URL('../../../../examples/invoices/', import.meta.url))
const migrations = join(app, 'prisma/migrations')

async function a2a(...args: string[]) {
  const { io, stdout, stderr } = captureIo()
  const code = await runA2a(args, io, { cwd: app })
  return { code, stdout: stdout(), stderr: stderr() }
}

describe('a2a inbox-link', () => {
  let dir: string
  const savedUrl = process.env.DATABASE_URL
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'a2a-inbox-link-'))
    const file = join(dir, 'app.db')
    const sqlite = new Database(file)
    for (const name of readdirSync(migrations).filter((entry) => /^\d/.test(entry)).sort()) {
      sqlite.exec(readFileSync(join(migrations, name, 'migration.sql'), 'utf8'))
    }
    sqlite.close()
    process.env.DATABASE_URL = `file:${file}`
  })
  afterAll(() => {
    if (savedUrl === undefined) delete process.env.DATABASE_URL
    else process.env.DATABASE_URL = savedUrl
    rmSync(dir, { recursive: true, force: true })
  })

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
      const signIn = () => fetch(`${base}/inbox/sign-in`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${token}`, redirect: 'manual' })
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
