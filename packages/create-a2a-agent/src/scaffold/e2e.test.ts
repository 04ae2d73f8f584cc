// End to end, offline: scaffold a SQLite and a PostgreSQL app inside this repository (so Node resolves the local
// runtime and CLI from the root node_modules), run the scaffolder's own steps on it, then the
// app's type-check and its tests. A second run goes through `scaffold` with a recording runner.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { captureIo } from '../cli/test-io.js'
import { checkApp, env, scaffoldApp, scaffoldRoot } from './e2e-support.js'
import { runCreate } from './index.js'
import type { Run } from './steps.js'
import type { Database } from './templates.js'

const root = scaffoldRoot()

/** Scaffolds with `flags`, runs the scaffolder's steps, then the app's type-check and tests. */
async function scaffoldAndTest(name: string, flags: string[], database: Database, stepEnv: Record<string, string>) {
  const { app, sql } = await scaffoldApp(root, name, flags, database, stepEnv)
  const { tests } = await checkApp(app, stepEnv)
  return { sql, tests }
}

describe('a scaffolded app', () => {
  it('SQLite, example entity: generates, migrates, type-checks and passes its own tests', { timeout: 60_000 }, async () => {
    const { sql, tests } = await scaffoldAndTest('my-agent', ['--yes'], 'sqlite', env)
    expect(sql).toContain('CREATE TABLE "Note"')
    expect(tests).toMatch(/Test Files +2 passed/)
  })

  it('SQLite, two agents in one app (--multi-agent): the same, against the main agent', { timeout: 60_000 }, async () => {
    const { tests } = await scaffoldAndTest('multi-agent', ['--yes', '--multi-agent'], 'sqlite', env)
    expect(tests).toMatch(/Test Files +2 passed/)
    expect(readFileSync(join(root, 'multi-agent/src/app.ts'), 'utf8')).toContain("{ id: 'helper', skills: [hello]")
  })

  // The app's test/support.ts makes (and drops) a throwaway database on DATABASE_URL's server.
  it('PostgreSQL, empty: the same, on the test server', { timeout: 60_000 }, async () => {
    const server = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'
    const { sql, tests } = await scaffoldAndTest('pg-agent', ['--database', 'postgresql', '--empty'], 'postgresql', { DATABASE_URL: server })
    expect(sql).not.toContain('"Note"')
    expect(tests).toMatch(/Test Files +1 passed/)
  })

  it('runs install, generate, migration and git in order, with progress', async () => {
    const app = join(root, 'steps-agent')
    const calls: string[] = []
    const recorder: Run = async (command, args, options) => {
      calls.push([command === process.execPath ? 'node' : command, ...args.map((arg) => (arg.includes('node_modules') ? '<prisma>' : arg))].join(' '))
      expect(options.cwd).toBe(app)
      if (args.includes('migrate')) expect(options.env).toEqual(env)
      return { code: 0, stdout: args.includes('diff') ? '-- CreateTable\n' : '', stderr: '' }
    }
    const { io, stdout } = captureIo()
    const previous = process.env.DATABASE_URL
    delete process.env.DATABASE_URL
    try {
      expect(await runCreate([app, '--yes'], io, { run: recorder })).toBe(0)
    } finally {
      if (previous !== undefined) process.env.DATABASE_URL = previous
    }
    expect(calls).toEqual([
      'npm install --no-audit --no-fund',
      'node <prisma> generate',
      'node <prisma> migrate diff --from-empty --to-schema-datamodel prisma --script',
      'git rev-parse --is-inside-work-tree',
      'git init --quiet',
      'git add --all',
      'git commit --quiet --message Initial commit from create-a2a-agent',
    ])
    expect(stdout()).toMatch(
      /- Installing dependencies .*done[\s\S]*- Generating entity tools .*done[\s\S]*- Generating the Prisma client .*done[\s\S]*- Writing the first migration .*done[\s\S]*- Creating a git repository .*done[\s\S]*Next:\n {2}cd .*\n {2}npm run db:migrate\n {2}npm run dev/,
    )
    expect(readFileSync(join(app, 'src/a2a/entities.gen.ts'), 'utf8')).toContain('notesTools(db)')
  })
})
