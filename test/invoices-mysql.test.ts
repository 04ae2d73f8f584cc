/**
 * examples/invoices on MySQL/MariaDB (the server at A2A_TEST_MYSQL_URL, default
 * mysql://root@127.0.0.1:3306/mysql): its own tests pass there, each file in a throwaway database
 * that `a2a migrate deploy` creates and migrates, all dropped after; and prisma-mysql/migrations
 * builds exactly prisma-mysql/'s schema.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { mysqlConnection, mysqlServer as server } from './mysql-server.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const example = join(root, 'examples/invoices')

/** `<command> <args>` in the example with extra env: exit code and output, never a throw. */
function inExample(command: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: example, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr })
    })
  })
}

async function databases(pattern: string): Promise<string[]> {
  const admin = await mysqlConnection()
  try {
    return ((await admin.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [pattern])) as { name: string }[]).map((row) => row.name)
  } finally {
    await admin.end()
  }
}

describe.concurrent('examples/invoices on MySQL/MariaDB', () => {
  it('passes its own tests, each file in its own database, all dropped after', { timeout: 180_000 }, async () => {
    const files = readdirSync(join(example, 'test'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.test.ts'))
    const before = new Set(await databases('invoices\\_test\\_%'))
    const seen = new Set<string>()
    let watching = true
    const watcher = (async () => {
      while (watching) {
        for (const name of await databases('invoices\\_test\\_%')) if (!before.has(name)) seen.add(name)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const run = await inExample(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', example], {
      DATABASE_URL: server.href,
      CI: '1',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
    }).finally(() => (watching = false))
    await watcher
    expect(run.code, run.output).toBe(0)
    expect(run.output).toMatch(new RegExp(`Test Files +${files.length} passed`))
    expect(seen.size, [...seen].join(', ')).toBeGreaterThanOrEqual(files.length)
    expect((await databases('invoices\\_test\\_%')).filter((name) => seen.has(name))).toEqual([])
  })

  // a2a migrate dev replays the history on a shadow database, applies it to a fresh one, then
  // diffs the Prisma schema with what it built: nothing to write when they agree.
  it('prisma-mysql/migrations builds exactly its schema', { timeout: 60_000 }, async () => {
    const url = new URL(server.href)
    url.pathname = `/invoices_history_${randomBytes(6).toString('hex')}`
    try {
      const result = await inExample('npx', ['--no-install', 'a2a', 'migrate', 'dev', '--schema', 'prisma-mysql'], { DATABASE_URL: url.href })
      expect(result.code, result.output).toBe(0)
      expect(result.output).toMatch(/Applied 0001_init[\s\S]*Already in sync/)
    } finally {
      const admin = await mysqlConnection()
      await admin.query(`DROP DATABASE IF EXISTS \`${url.pathname.slice(1)}\``).finally(() => admin.end())
    }
  })
})
