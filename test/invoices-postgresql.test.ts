/**
 * examples/invoices on PostgreSQL as well as SQLite (the root run covers SQLite): its own tests run
 * on the server at A2A_TEST_PG_URL (default postgresql://root@127.0.0.1:5432/postgres; .ci/run
 * starts it), each file in a throwaway database; prisma-postgresql/ agrees with prisma/; and each
 * migration history builds exactly its schema.
 */
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { postgresqlSchemaFiles, stalePostgresqlSchemaFiles } from '../examples/invoices/scripts/postgresql-schema.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const example = join(root, 'examples/invoices')
const server = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'

/** `node <args>` in the example with extra env: exit code and output, never a throw. */
function node(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: example, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr })
    })
  })
}

/**
 * The invoices_test_* databases on the server; with `appName`, only those that connections named
 * so (PGAPPNAME, which node-postgres reads) are using now, so that other runs on the server don't count.
 */
async function testDatabases(appName?: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    const { rows } = appName
      ? await client.query<{ datname: string }>("SELECT DISTINCT datname FROM pg_stat_activity WHERE application_name = $1 AND datname LIKE 'invoices\\_test\\_%'", [appName])
      : await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'invoices\\_test\\_%'")
    return rows.map((row) => row.datname)
  } finally {
    await client.end()
  }
}

describe.concurrent('examples/invoices on PostgreSQL', () => {
  it('passes its own tests, each file in its own database, all dropped after', { timeout: 120_000 }, async () => {
    const files = readdirSync(join(example, 'test'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.test.ts'))
    // Watch the server while the tests run: every file must use (and then drop) its own database.
    const appName = `invoices-postgresql-${process.pid}`
    const seen = new Set<string>()
    let watching = true
    const watcher = (async () => {
      while (watching) {
        for (const name of await testDatabases(appName)) seen.add(name)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const vitest = join(root, 'node_modules/vitest/vitest.mjs')
    const env = { DATABASE_URL: server, PGAPPNAME: appName, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' }
    const run = await node([vitest, 'run', '--root', example], env).finally(() => (watching = false))
    await watcher
    expect(run.code, run.output).toBe(0)
    expect(run.output).toMatch(new RegExp(`Test Files +${files.length} passed`))
    expect(seen.size, [...seen].join(', ')).toBe(files.length)
    expect((await testDatabases()).filter((name) => seen.has(name))).toEqual([])
  })

  it('prisma-postgresql/ holds what prisma/ implies, and goes stale when prisma/ changes', () => {
    expect(stalePostgresqlSchemaFiles(), 'run `npm run generate:prisma -w examples/invoices`').toEqual([])
    const copy = mkdtempSync(join(tmpdir(), 'invoices-schema-'))
    try {
      for (const folder of ['prisma', 'prisma-postgresql', 'prisma-mysql']) cpSync(join(example, folder), join(copy, folder), { recursive: true })
      const schema = join(copy, 'prisma/schema.prisma')
      const note = '  note       String?\n'
      expect(readFileSync(schema, 'utf8')).toContain(note)
      writeFileSync(schema, readFileSync(schema, 'utf8').replace(note, `${note}  poNumber   String?\n`))
      expect(stalePostgresqlSchemaFiles(copy)).toEqual(['prisma-postgresql/schema.prisma', 'prisma-mysql/schema.prisma'])
      const copied = postgresqlSchemaFiles(copy).get('prisma-postgresql/schema.prisma')!
      expect(copied).toContain(`${note}  poNumber   String?\n`)
      expect(copied).toContain('provider = "postgresql"')
      expect(copied).toContain('output       = "../src/generated/postgresql"')
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })

  // Replays each migration history on a shadow database (in memory for SQLite; created and dropped
  // on the server for PostgreSQL) through the adapters in prisma.config.ts, and diffs it with the schema.
  it('each migration history builds exactly its schema', { timeout: 60_000 }, async () => {
    const prisma = join(root, 'node_modules/prisma/build/index.js')
    const diff = (folder: string, url: string) =>
      node([prisma, 'migrate', 'diff', '--from-migrations', `${folder}/migrations`, '--to-schema-datamodel', folder, '--exit-code'], { DATABASE_URL: url })
    // The SQLite adapter opens (so creates) its main database file: keep it out of the example.
    const scratch = mkdtempSync(join(tmpdir(), 'invoices-diff-'))
    const [sqlite, postgresql] = await Promise.all([diff('prisma', `file:${join(scratch, 'main.db')}`), diff('prisma-postgresql', server)]).finally(() =>
      rmSync(scratch, { recursive: true, force: true }),
    )
    expect(sqlite.code, sqlite.output).toBe(0)
    expect(sqlite.output).toContain('No difference detected.')
    expect(postgresql.code, postgresql.output).toBe(0)
    expect(postgresql.output).toContain('No difference detected.')
  })

  // One source for those fixes: the runtime's prisma-config, which the scaffolded apps use too.
  it("prisma.config.ts takes the adapter fixes from the runtime, as the scaffolder's template does", () => {
    const config = readFileSync(join(example, 'prisma.config.ts'), 'utf8')
    const template = readFileSync(join(root, 'templates/app/prisma.config.ts.hbs'), 'utf8')
    expect(config).toContain("from '../../packages/runtime/src/prisma-config.js'")
    expect(template).toContain("import { prismaConfig } from '{{prismaConfigModule}}'")
    for (const text of [config, template]) expect(text).not.toMatch(/extends Prisma(Pg|BetterSQLite3)|performIO/)
  })

  it('type-checks with its own tsconfig (prisma.config.ts and scripts/ too)', async () => {
    const tsc = await node([join(root, 'node_modules/typescript/bin/tsc'), '-p', example], {})
    expect(tsc.output).toBe('')
    expect(tsc.code).toBe(0)
  })
})
