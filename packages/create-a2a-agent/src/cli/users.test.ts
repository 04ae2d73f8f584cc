import { PrismaStore, createApiKey } from '@a2a-agent/runtime/prisma'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb } from '../../../../examples/invoices/src/db.js'
import { a2aInInvoices as a2a, migratedInvoicesDb } from './invoices-app.js'

const task = (id: string, owner: string) => ({
  id,
  contextId: `ctx-${id}`,
  owner,
  tenant: null,
  scope: null,
  skill: 'invoices.list',
  version: 1,
  task: { id, contextId: `ctx-${id}`, status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: '2026-01-01T00:00:00.000Z' } },
  messageIds: [`m-${id}`],
  createdAt: Date.UTC(2026, 0, 1),
  updatedAt: Date.UTC(2026, 0, 1),
})

describe('a2a users', () => {
  let database: ReturnType<typeof migratedInvoicesDb>
  beforeAll(async () => {
    database = migratedInvoicesDb('a2a-users-')
    const db = createDb()
    const store = new PrismaStore(db)
    await store.create(task('a1', 'alice'))
    await store.create(task('b1', 'bob'))
    await store.putPushConfig({ id: 'h', taskId: 'a1', owner: 'alice', url: 'https://hooks.example.com/', token: 't', createdAt: Date.UTC(2026, 0, 1) })
    await createApiKey(db, { owner: 'alice', tenant: 'acme' })
    await db.$disconnect()
  })
  afterAll(() => database?.remove())

  it("export prints one user's tasks, push configs and API keys as JSON", async () => {
    const exported = await a2a('users', 'export', 'alice')
    expect(exported).toMatchObject({ code: 0, stderr: '' })
    const data = JSON.parse(exported.stdout)
    expect(data.owner).toBe('alice')
    expect(data.tasks).toEqual([task('a1', 'alice')])
    expect(data.pushConfigs).toEqual([{ id: 'h', taskId: 'a1', owner: 'alice', url: 'https://hooks.example.com/', token: 't', createdAt: Date.UTC(2026, 0, 1) }])
    expect(data.apiKeys).toMatchObject([{ owner: 'alice', tenant: 'acme', scopes: null, revokedAt: null }])
    expect(data.apiKeys[0]).not.toHaveProperty('hash')
  })

  it("erase wants --yes, then deletes one user's data and no one else's", async () => {
    const refused = await a2a('users', 'erase', 'alice')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^a2a: erasing deletes all of alice's tasks, push configs and API keys for good; pass --yes/)
    expect(JSON.parse((await a2a('users', 'export', 'alice')).stdout).tasks).toHaveLength(1)

    expect(await a2a('users', 'erase', 'alice', '--yes')).toEqual({
      code: 0,
      stdout: 'Erased alice: 1 task(s), 1 push config(s), 1 message id(s), 1 API key(s), 0 artifact file(s).\n',
      stderr: '',
    })
    expect(JSON.parse((await a2a('users', 'export', 'alice')).stdout)).toEqual({ owner: 'alice', tasks: [], pushConfigs: [], apiKeys: [] })
    expect(JSON.parse((await a2a('users', 'export', 'bob')).stdout).tasks).toEqual([task('b1', 'bob')])
  })

  it('reports usage mistakes in one line', async () => {
    expect(await a2a('users', 'export')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^a2a: Not enough non-option arguments.*\nRun `a2a users export --help`/) })
    expect(await a2a('users')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^a2a: Name what to do, e.g. `a2a users export <id>`/) })
  })
})
