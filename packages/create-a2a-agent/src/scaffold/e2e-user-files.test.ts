// End to end, offline, on SQLite, through the app's own `a2a` and `npm` commands: the files a2a
// creates once and leaves to the user (hooks, test/support.ts, prisma/seed.ts) follow the
// generator and the schema without losing a line the user wrote.
import { execFile } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { bin, checkApp, env, scaffoldApp, scaffoldRoot, userEnv } from './e2e-support.js'
import { keepsLines } from '../../../../generators/src/write/test-helpers.js'
import { run } from './steps.js'

const root = scaffoldRoot()

/** A command in the app as a person runs it; resolves to its exit code and output. */
async function inApp(app: string, command: string, args: string[], extra: Record<string, string> = {}) {
  const done = await promisify(execFile)(command, args, { cwd: app, env: userEnv(extra) }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout: string; stderr: string }) => ({ code: error.code ?? 1, stdout: error.stdout, stderr: error.stderr }),
  )
  return { ...done, output: `${done.stdout}\n${done.stderr}` }
}

const prisma = (app: string, args: string[]) => run(process.execPath, [bin('prisma/build/index.js'), ...args], { cwd: app, env })

describe('user-owned files follow the generator', () => {
  it('hooks and test/support.ts edited by hand: an operation added and a field renamed; a2a adds the hook and the missing member, keeps every line of the user, and the app passes its tests', {
    timeout: 600_000,
  }, async () => {
    const { app } = await scaffoldApp(root, 'follow-agent', [], 'sqlite', env)
    const file = (path: string) => join(app, path)
    const read = (path: string) => readFileSync(file(path), 'utf8')
    const entities = read('src/entities.ts')
    const declared = "    ownerField: 'userId',\n"
    expect(entities).toContain(declared)
    writeFileSync(file('src/entities.ts'), entities.replace(declared, `${declared}    operations: ['list', 'get', 'create'],\n`))
    expect((await inApp(app, 'npx', ['a2a', 'generate', 'entities'])).code).toBe(0)
    expect(read('src/a2a/hooks/notes.ts')).not.toContain('NoteRow')

    // The user's hook and helper.
    const mine = "  // Mine: titles are short.\n  if (_input.title.length > 200) throw new ToolError('title too long')"
    const hooks = read('src/a2a/hooks/notes.ts')
      .replace("import type { ToolContext } from '@a2a-agent/runtime'", "import { ToolError, type ToolContext } from '@a2a-agent/runtime'")
      .replace('Promise<void> {}', `Promise<void> {\n${mine}\n}`)
    expect(hooks).toContain(mine)
    writeFileSync(file('src/a2a/hooks/notes.ts'), `${hooks}\n// My helper.\nexport const MAX_TITLE = 200\n`)
    // test/support.ts as an app scaffolded before the generated tests imported its TestApp type.
    const support = read('test/support.ts')
    const testApp = /\nexport interface TestApp \{[\s\S]*?\n\}\n/.exec(support)![0]
    const older = `${support.replace(testApp, '\n').replace('): Promise<TestApp> {', ') {')}\n// My helper.\nexport const testTimeoutMs = 5000\n`
    writeFileSync(file('test/support.ts'), older)
    const typecheck = () => run(process.execPath, [bin('typescript/bin/tsc'), '-p', app], { cwd: app })
    expect((await typecheck()).stdout).toContain("has no exported member 'TestApp'")

    // The declarations change: delete is added, and Note's body is renamed content (same column).
    writeFileSync(file('src/entities.ts'), entities.replace(declared, `${declared}    operations: ['list', 'get', 'create', 'delete'],\n`))
    const schema = read('prisma/schema.prisma')
    const body = '  body      String   @default("")\n'
    expect(schema).toContain(body)
    writeFileSync(file('prisma/schema.prisma'), schema.replace(body, '  content   String   @default("") @map("body")\n'))

    // --check and --dry-run show the edits like any other change, and write nothing.
    const check = await inApp(app, 'npx', ['a2a', 'generate', 'entities', '--check'])
    expect(check.code).toBe(1)
    expect(check.stdout).toMatch(/would update +src\/a2a\/hooks\/notes\.ts \(yours, edited in place: added beforeDelete\)/)
    expect(check.stdout).toMatch(/would update +test\/support\.ts \(yours, edited in place: added TestApp\)/)
    const diff = await inApp(app, 'npx', ['a2a', 'generate', 'entities', '--diff'])
    expect(diff.stdout).toContain('+export async function beforeDelete(_current: NoteRow, _context: ToolContext): Promise<void> {}')
    expect(read('test/support.ts')).toBe(older)

    const generated = await inApp(app, 'npm', ['run', 'generate'])
    expect(generated.code, generated.output).toBe(0)
    expect(generated.stdout).toMatch(/updated +src\/a2a\/hooks\/notes\.ts \(yours, edited in place: added beforeDelete\)/)
    const after = read('src/a2a/hooks/notes.ts')
    expect(keepsLines(after, hooks.slice(hooks.indexOf('/**')))).toBe(true)
    expect(after).toContain('\n// My helper.\nexport const MAX_TITLE = 200\n')
    expect(after).toContain("import type { NotesCreateInput, NoteRow } from '../notes.gen.js'")
    expect(after).toMatch(/\/\*\* Runs before an agent deletes one of its notes: `_current` is the row as stored\. \*\/\nexport async function beforeDelete\(/)
    const supportAfter = read('test/support.ts')
    expect(supportAfter.startsWith(older)).toBe(true)
    expect(supportAfter.slice(older.length)).toMatch(/^\nexport interface TestApp \{\n[\s\S]*\n {2}db: Db\n[\s\S]*\}\n$/)
    expect(read('src/a2a/notes.gen.ts')).toContain('content')

    // The app type-checks and passes its tests, the generated ones for delete and content included.
    const { tests } = await checkApp(app, env)
    expect(tests).toMatch(/notes\.gen\.test\.ts/)
    // Nothing more to edit: a second run leaves both files as they are.
    const again = await inApp(app, 'npx', ['a2a', 'generate', 'entities', '--check'])
    expect(again.code, again.output).toBe(0)
  })

  it('prisma/seed.ts follows the owner model (Int ids named uid, no email) while untouched, runs with `npm run db:seed`, and is kept with a message once edited', {
    timeout: 600_000,
  }, async () => {
    const { app } = await scaffoldApp(root, 'seed-agent', ['--empty'], 'sqlite', env)
    const file = (path: string) => join(app, path)
    const read = (path: string) => readFileSync(file(path), 'utf8')
    // The scaffold's generate wrote the seed from its User model, and the scaffold ran it.
    expect(read('prisma/seed.ts')).toContain('await db.user.upsert(')
    expect(JSON.parse(read('.a2a/manifest.json')).userHashes).toHaveProperty(['prisma/seed.ts'])

    const account = `model Account {
  uid         Int    @id @default(autoincrement())
  handle      String @unique
  displayName String
  posts       Post[]
}

model Post {
  id       Int     @id @default(autoincrement())
  title    String
  author   Account @relation(fields: [authorId], references: [uid])
  authorId Int
}
`
    const scaffolded = read('prisma/schema.prisma')
    const user = /model User \{[\s\S]*?\n\}\n/.exec(scaffolded)![0]
    writeFileSync(file('prisma/schema.prisma'), scaffolded.replace(user, account))
    writeFileSync(
      file('src/entities.ts'),
      "import { defineEntities } from '@a2a-agent/runtime/entities'\n\nexport default defineEntities({\n  posts: { model: 'Post', ownerField: 'authorId' },\n})\n",
    )
    const generated = await inApp(app, 'npm', ['run', 'generate'])
    expect(generated.code, generated.output).toBe(0)
    expect(generated.stdout).toMatch(/updated +prisma\/seed\.ts/)
    const seed = read('prisma/seed.ts')
    expect(seed).toContain('await db.account.upsert(')
    expect(seed).toContain('where: { uid: Number(id) }')
    expect(seed).not.toContain('email')

    // A fresh first migration for the adopted schema, then the seed as a person runs it.
    rmSync(file('prisma/migrations'), { recursive: true })
    rmSync(file('dev.db'))
    expect((await prisma(app, ['migrate', 'dev', '--name', 'init'])).code).toBe(0)
    const named = await inApp(app, 'npm', ['run', 'db:seed'])
    expect(named.code).not.toBe(0)
    expect(named.output).toContain(
      "A2A_DEV_KEYS names alice, bob, but Account ids (uid) are numbers: no key can act as such an owner. In .env, name each owner by a number, e.g. A2A_DEV_KEYS=1:<alice's token>,2:<bob's token>.",
    )
    const numbered = await inApp(app, 'npm', ['run', 'db:seed'], { A2A_DEV_KEYS: '1:dev-key-one,2:dev-key-two' })
    expect(numbered.code, numbered.output).toBe(0)
    expect(numbered.stdout).toContain('Development users in the database: 1, 2.')
    const sqlite = new Database(file('dev.db'), { readonly: true })
    try {
      expect(sqlite.prepare('SELECT uid, handle FROM Account ORDER BY uid').all()).toEqual([
        { uid: 1, handle: 'handle-1' },
        { uid: 2, handle: 'handle-2' },
      ])
    } finally {
      sqlite.close()
    }
    await checkApp(app, env)

    // Edited, the seed is the user's: a later schema change leaves it, and the run says so.
    const edited = `${seed}// Mine: more development data goes here.\n`
    writeFileSync(file('prisma/seed.ts'), edited)
    writeFileSync(file('prisma/schema.prisma'), read('prisma/schema.prisma').replace('  displayName String\n', '  displayName String\n  bio         String\n'))
    const later = await inApp(app, 'npx', ['a2a', 'generate', 'entities'])
    expect(later.code, later.output).toBe(0)
    expect(read('prisma/seed.ts')).toBe(edited)
    expect(later.stdout).toContain('Change prisma/seed.ts (yours, so a2a left it): a2a now writes it differently than when it wrote it')
  })
})
