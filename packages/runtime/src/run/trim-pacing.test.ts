import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { SqliteStore } from '../store/sql/sqlite/sqlite-store.js'
import type { Store } from '../store/store.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { TrimPacing } from './trim-pacing.js'

// A SQL store's trim is a statement and a commit of its own that reads the whole tier, so its
// tiers are trimmed at every ⌊bound / 8⌋-th settle; MemoryStore's at every settle. Through a real
// SqliteStore file and the exchange's own retention.

let sqlite: TestDatabase
let server: TestServer | undefined
const opened: SqliteStore[] = []
beforeAll(async () => {
  sqlite = await openDatabase('sqlite')
})
afterEach(async () => {
  await server?.close()
  server = undefined
})
afterAll(async () => {
  for (const store of opened) store.close()
  await sqlite?.close()
})

const done = defineSkill({ id: 'done', description: 'completes at once', handler: (ctx) => ctx.complete('done') })

async function start(store: Store, settledTaskRetention: number): Promise<void> {
  server = await startTestServer({ skills: [done], store, settledTaskRetention })
}

const send = async (times: number) => {
  for (let i = 0; i < times; i++) await server!.result('SendMessage', { message: userMessage(`go ${i}`, { skill: 'done' }) })
}
const total = async (): Promise<number> => (await server!.result('ListTasks', {})).totalSize

function sqliteStore(): SqliteStore {
  const store = new SqliteStore(sqlite.url)
  opened.push(store)
  return store
}

describe('retention on a store whose trims are paced (SqliteStore)', () => {
  it('trims a tier at its first settle and then every ⌊bound / 8⌋-th, back to the bound', async () => {
    await sqlite.clear()
    await start(sqliteStore(), 16)
    // Settles 1, 3, 5, … trim (every second one, at a bound of 16).
    await send(18)
    await sleep(50)
    expect(await total()).toBe(17)
    await send(1)
    await vi.waitFor(async () => expect(await total()).toBe(16))
  })

  it('keeps a bound under 16 exactly', async () => {
    await sqlite.clear()
    await start(sqliteStore(), 8)
    await send(11)
    await vi.waitFor(async () => expect(await total()).toBe(8))
  })
})

describe('retention on MemoryStore', () => {
  it('trims at every settle', async () => {
    await start(new MemoryStore(), 16)
    await send(18)
    expect(await total()).toBe(16)
  })
})

describe('TrimPacing', () => {
  it('follows at most 10,000 tiers, and one it forgot is trimmed at its next settle', () => {
    const pacing = new TrimPacing()
    expect(pacing.due('first', 64)).toBe(true)
    expect(pacing.due('first', 64)).toBe(false)
    for (let i = 0; i < 10_000; i++) pacing.due(`tier ${i}`, 64)
    expect(pacing.due('first', 64)).toBe(true)
    expect(pacing.due('tier 9999', 64)).toBe(false)
  })
})
