// End to end, offline, on SQLite: the schema changes after the first migration. A field is added to
// Note, the app is regenerated, the next migration is written, and the app (started by its own
// test/support.ts, under its own vitest) shows the new field over MCP and over A2A.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { captureIo } from '../cli/test-io.js'
import { bin, checkApp, env, scaffoldApp, scaffoldRoot } from './e2e-support.js'
import { generateEntities, prismaGenerate, run } from './steps.js'

const root = scaffoldRoot()

// Written into the scaffolded app's test/ folder: it runs with the app's tooling, against a
// database its support.ts builds from every prisma/migrations/*/migration.sql.
const colourTest = `import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entityCaller, resultOf, type EntityCaller } from '@a2a-agent/runtime/testing'
import { createTestApp, type TestApp } from './support.js'

let app: TestApp
let notes: EntityCaller

beforeAll(async () => {
  app = await createTestApp()
  notes = await entityCaller(app, { skill: 'entity.notes', tools: {} })
})

afterAll(async () => {
  await notes?.close()
  await app?.close()
})

describe('the colour field added after the first migration', () => {
  it('is an argument of notes_create over MCP, and stored', async () => {
    const tools = await notes.listTools('alice')
    const create = tools.find((tool) => tool.name === 'notes_create')
    expect(create?.inputSchema.properties).toHaveProperty('colour')
    const created = await notes.tool('alice', 'notes_create', { title: 'Sky', colour: 'blue' })
    expect(created).toMatchObject({ title: 'Sky', colour: 'blue', userId: 'alice' })
  })

  it('is created over A2A and lists by colour', async () => {
    const task = await notes.send('alice', 'create', { title: 'Tomato', colour: 'red' })
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    const created = resultOf(task)
    expect(created).toMatchObject({ title: 'Tomato', colour: 'red' })
    const listed = await notes.send('alice', 'list', { colour: 'red' })
    expect(listed.status.state).toBe('TASK_STATE_COMPLETED')
    expect(resultOf(listed)).toMatchObject({ data: [created], total: 1 })
  })
})
`

describe('a scaffolded app whose schema changes', () => {
  it('SQLite: a new Note field regenerates, migrates and reaches MCP and A2A', { timeout: 60_000 }, async () => {
    const { app } = await scaffoldApp(root, 'change-agent', ['--yes'], 'sqlite', env)
    const file = (path: string) => join(app, path)
    const hooks = readFileSync(file('src/a2a/hooks/notes.ts'))
    expect(readFileSync(file('src/a2a/notes.gen.ts'), 'utf8')).not.toContain('colour')

    const schema = readFileSync(file('prisma/schema.prisma'), 'utf8')
    const done = '  done      Boolean  @default(false)\n'
    expect(schema).toContain(done)
    writeFileSync(file('prisma/schema.prisma'), schema.replace(done, `${done}  /// Colour label\n  colour    String?\n`))
    await generateEntities(app, captureIo().io)
    await prismaGenerate(app, env)

    // The next migration, as `prisma migrate dev --create-only` would write it: the migrations so
    // far replayed on a shadow database (in memory, through the wasm engine and the SQLite patch
    // in the app's prisma.config.ts, so nothing is downloaded), diffed against the schema.
    const prisma = bin('prisma/build/index.js')
    const args = ['migrate', 'diff', '--from-migrations', 'prisma/migrations', '--to-schema-datamodel', 'prisma', '--script']
    const diff = await run(process.execPath, [prisma, ...args], { cwd: app, env })
    expect(diff.code, diff.stderr).toBe(0)
    expect(diff.stdout.trim()).toBe('-- AlterTable\nALTER TABLE "Note" ADD COLUMN "colour" TEXT;')
    mkdirSync(file('prisma/migrations/0002_colour'))
    writeFileSync(file('prisma/migrations/0002_colour/migration.sql'), diff.stdout)

    expect(readFileSync(file('src/a2a/notes.gen.ts'), 'utf8')).toContain('colour')
    expect(readFileSync(file('src/a2a/hooks/notes.ts')).equals(hooks)).toBe(true)

    // Only this file runs: the regenerated entity tests would more than double the time, and the
    // unchanged schema's run of them is in e2e.test.ts. The type-check still covers the whole app.
    writeFileSync(file('test/colour.test.ts'), colourTest)
    const { tests } = await checkApp(app, env, ['test/colour.test.ts'])
    expect(tests).toMatch(/Tests +2 passed/)
  })
})
