// End to end, offline, on SQLite: the schema changes after the first migration, while `npm run dev`
// runs. A field is added to Note, `npm run db:change -- --name colour` regenerates and migrates,
// the running app reloads with it, and the app (started by its own test/support.ts, under its own
// vitest) shows the new field over MCP and over A2A.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { addColourWithDbChange, checkApp, devTokens, env, scaffoldApp, scaffoldRoot, sendMessage, startApp } from './e2e-support.js'

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
  it('SQLite: `npm run db:change` while `npm run dev` runs adds a Note field that reaches MCP and A2A', { timeout: 240_000 }, async () => {
    const { app } = await scaffoldApp(root, 'change-agent', [], 'sqlite', env)
    const file = (path: string) => join(app, path)
    const hooks = readFileSync(file('src/a2a/hooks/notes.ts'))
    expect(readFileSync(file('src/a2a/notes.gen.ts'), 'utf8')).not.toContain('colour')
    const alice = devTokens(app).alice!

    const running = await startApp(app, 'dev')
    try {
      // The running app has the database open in WAL mode: the migration must not need it closed.
      expect((await sendMessage(running.url, alice, { data: { skill: 'entity.notes', operation: 'list', arguments: {} } })).status).toBe(200)
      const { sql } = await addColourWithDbChange(app)
      expect(sql).toBe('-- AlterTable\nALTER TABLE "Note" ADD COLUMN "colour" TEXT;')
      expect(readFileSync(file('src/a2a/notes.gen.ts'), 'utf8')).toContain('colour')
      expect(readFileSync(file('src/a2a/hooks/notes.ts')).equals(hooks)).toBe(true)

      // tsx watch restarts on the regenerated code; the new column is there for it.
      const create = { data: { skill: 'entity.notes', operation: 'create', arguments: { title: 'Sky', colour: 'blue' } } }
      const created = async () => (await sendMessage(running.url, alice, create).catch(() => undefined))?.body?.result?.task?.artifacts?.[0]?.parts?.[0]?.data
      await expect.poll(created, { timeout: 30_000, interval: 500 }).toMatchObject({ title: 'Sky', colour: 'blue', userId: 'alice' })
    } finally {
      await running.stop()
    }

    // Only this file runs: the regenerated entity tests would more than double the time, and the
    // unchanged schema's run of them is in e2e.test.ts. The type-check still covers the whole app.
    writeFileSync(file('test/colour.test.ts'), colourTest)
    const { tests } = await checkApp(app, env, ['test/colour.test.ts'])
    expect(tests).toMatch(/Tests +2 passed/)
  })
})
