import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { PrismaStore } from '../store/prisma/prisma-store.js'
import type { Store } from '../store/store.js'
import { capabilityOf } from '../store/capabilities.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { INLINE_ARTIFACT_BYTES } from './offload.js'

const bigText = 'é'.repeat(40 * 1024) // 80 KiB of UTF-8
const pdf = randomBytes(100 * 1024)
const report = defineSkill({
  id: 'report',
  description: 'writes a report',
  handler: async (ctx) => {
    await ctx.artifact({
      name: 'report',
      parts: [
        { text: 'summary' },
        { text: 'x'.repeat(INLINE_ARTIFACT_BYTES) },
        { text: bigText, metadata: { section: 'body' } },
        { raw: pdf.toString('base64'), mediaType: 'application/pdf', filename: 'Q3 report.pdf' },
      ],
    })
  },
})
const inbox = defineSkill({ id: 'inbox', description: 'counts bytes', handler: (ctx) => ctx.complete(`${ctx.message.parts.length} parts`) })

let server: TestServer
afterEach(() => server?.close())

async function reportParts(): Promise<any[]> {
  const { task } = await server.result('SendMessage', { message: userMessage('go', { skill: 'report' }) })
  expect(task.status.state).toBe('TASK_STATE_COMPLETED')
  return task.artifacts[0].parts
}

const get = (url: string, token?: string) => fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {})

async function servesLargePartsByUrl(): Promise<void> {
  const parts = await reportParts()
  expect(parts[0]).toEqual({ text: 'summary' })
  // Exactly the cap stays inline.
  expect(parts[1].text).toHaveLength(INLINE_ARTIFACT_BYTES)
  expect(parts[2]).toEqual({ url: expect.stringMatching(new RegExp(`^${server.url}/a2a/artifacts/`)), mediaType: 'text/plain; charset=utf-8', metadata: { section: 'body' } })
  expect(parts[3]).toEqual({ url: expect.any(String), mediaType: 'application/pdf', filename: 'Q3 report.pdf' })
  const text = await get(parts[2].url, 'alice')
  expect(text.status).toBe(200)
  expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8')
  expect(await text.text()).toBe(bigText)
  const file = await get(parts[3].url, 'alice')
  expect(file.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Q3%20report.pdf")
  expect(file.headers.get('cache-control')).toBe('private, max-age=3600')
  expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true)
  // The caller's own key only: no anonymous links, and another owner learns nothing.
  const anonymous = await get(parts[3].url)
  expect(anonymous.status).toBe(401)
  expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=')
  expect((await get(parts[3].url, 'bob')).status).toBe(404)
  expect((await get(`${parts[3].url}x`, 'alice')).status).toBe(404)
}

describe('large artifacts', () => {
  it('are inline up to 64 KiB and otherwise served at an authenticated URL (memory store)', async () => {
    server = await startTestServer({ skills: [report] })
    await servesLargePartsByUrl()
  })

  it('keeps inline what a lower cap allows', async () => {
    server = await startTestServer({ skills: [report], maxInlineArtifactBytes: 8 })
    const parts = await reportParts()
    expect(parts[0]).toEqual({ text: 'summary' })
    expect(parts[1].url).toBeDefined()
  })
})

describe.each(['sqlite', 'postgres'] as const)('large artifacts in the %s database', (provider) => {
  let database: TestDatabase
  let store: Store & { close?: () => Promise<void> }
  beforeAll(async () => {
    database = await openDatabase(provider)
    store = provider === 'postgres' ? new PostgresStore(database.url, { max: 2 }) : new PrismaStore(database.db)
  })
  afterAll(async () => {
    await store?.close?.()
    await database?.close()
  })

  it('are stored beside the task and served from there, and swept once the task is gone', async () => {
    server = await startTestServer({ skills: [report], store })
    await servesLargePartsByUrl()
    const [task] = (await server.result('ListTasks', { includeArtifacts: true })).tasks
    const url = task.artifacts[0].parts[3].url
    await store.delete(task.id)
    expect(await capabilityOf(store, 'artifactFiles')!.artifactFiles.sweep(async () => false)).toBe(2)
    expect((await get(url, 'alice')).status).toBe(404)
  })
})

describe('raw parts in messages', () => {
  it('are accepted up to the body cap, and a body past it is 413', async () => {
    server = await startTestServer({ skills: [inbox], maxBodyBytes: 256 * 1024 })
    const fits = userMessage('x', { skill: 'inbox', parts: [{ raw: randomBytes(150 * 1024).toString('base64'), mediaType: 'application/pdf' }] })
    expect((await server.result('SendMessage', { message: fits })).task.status.message.parts[0].text).toBe('1 parts')
    const over = userMessage('x', { skill: 'inbox', parts: [{ raw: randomBytes(200 * 1024).toString('base64') }] })
    expect((await server.rpc('SendMessage', { message: over })).status).toBe(413)
  })
})
