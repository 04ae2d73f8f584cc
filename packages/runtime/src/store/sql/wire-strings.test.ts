import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../../skills/skill.js'
import { startTestServer, userMessage, type TestServer } from '../../testing/test-server.js'
import { MemoryStore } from '../memory-store.js'
import type { Store } from '../store.js'
import { openDatabase, type TestDatabase } from '../prisma/__fixture__/databases.js'
import { PrismaStore } from '../prisma/prisma-store.js'
import { SqliteStore } from './sqlite/sqlite-store.js'

// The same inputs over HTTP on every store give the same answers: strings no store can keep alike
// are refused at the wire, and a skill that produces one fails the same way everywhere.
const echo = defineSkill({ id: 'echo', description: 'echo', handler: async (ctx) => void (await ctx.artifact({ parts: ctx.text })) })
const nul = defineSkill({ id: 'nul', description: 'answers a NUL', handler: async (ctx) => void (await ctx.artifact({ parts: 'a\u0000b' })) })

const targets: { name: string; open: () => Promise<{ store: Store; close: () => Promise<void> }> }[] = [
  { name: 'MemoryStore', open: async () => ({ store: new MemoryStore(), close: async () => {} }) },
  {
    name: 'SqliteStore',
    open: async () => {
      const database = await openDatabase('sqlite')
      const store = new SqliteStore(database.url)
      return { store, close: async () => (store.close(), database.close()) }
    },
  },
  {
    name: 'PrismaStore on PostgreSQL',
    open: async () => {
      const database: TestDatabase = await openDatabase('postgres')
      return { store: new PrismaStore(database.db), close: () => database.close() }
    },
  },
]

const inputs: [string, Record<string, unknown>][] = [
  ['NUL in text', { message: userMessage('a\u0000b', { skill: 'echo' }) }],
  ['lone surrogate in text', { message: userMessage('a\ud800', { skill: 'echo' }) }],
  ['NUL in a metadata key', { message: userMessage('x', { metadata: { skill: 'echo', 'k\u0000': 1 } }) }],
  ['lone surrogate in a metadata value', { message: userMessage('x', { metadata: { skill: 'echo', note: '\udfff' } }) }],
  ['NUL in messageId', { message: { ...userMessage('x', { skill: 'echo' }), messageId: 'm\u0000' } }],
  ['lone surrogate in contextId', { message: { ...userMessage('x', { skill: 'echo' }), contextId: '\ud800c' } }],
  ['NUL in params metadata', { message: userMessage('x', { skill: 'echo' }), metadata: { v: '\u0000' } }],
]

const answers = new Map<string, unknown[]>()

for (const { name, open } of targets) {
  describe(name, () => {
    let server: TestServer
    let close: () => Promise<void>
    beforeAll(async () => {
      const opened = await open()
      close = opened.close
      server = await startTestServer({ skills: [echo, nul], store: opened.store })
    })
    afterAll(async () => {
      await server?.close()
      await close?.()
    })

    it('refuses every string no store keeps alike with -32602 naming the field', async () => {
      const seen: unknown[] = []
      for (const [what, params] of inputs) {
        const { body } = await server.rpc('SendMessage', params)
        expect(body.error?.code, what).toBe(-32602)
        seen.push(body.error.message)
      }
      const { body } = await server.rpc('GetTask', { id: 'x\u0000' })
      seen.push(body.error)
      expect(body.error.code).toBe(-32602)
      answers.set(name, seen)
    })

    it('fails a skill that answers a NUL without storing it, and stores the rest as sent', async () => {
      const failed = (await server.result('SendMessage', { message: userMessage('x', { skill: 'nul' }) })).task
      expect(failed.status.state).toBe('TASK_STATE_FAILED')
      const kept = (await server.result('SendMessage', { message: userMessage('😀 \u0001', { skill: 'echo' }) })).task
      expect((await server.result('GetTask', { id: kept.id })).artifacts[0].parts[0].text).toBe('😀 \u0001')
    })
  })
}

describe('every store', () => {
  it('gave the same answers', () => {
    const [first, ...rest] = [...answers.values()]
    expect(answers.size).toBe(targets.length)
    for (const other of rest) expect(other).toEqual(first)
  })
})
