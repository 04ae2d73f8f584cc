import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { MemoryStore } from '../store/memory-store.js'
import type { Store } from '../store/store.js'
import { EVERY_BINDING, type Binding, type BindingClient } from '../testing/binding-client.js'
import { startTestServer, userMessage, type TestServer } from '../testing/test-server.js'
import { wireCheck } from '../testing/wire-schema.js'

const ask = defineSkill({
  id: 'ask',
  description: 'asks once, then completes',
  handler: async (ctx) => {
    if (ctx.history.length === 1) await ctx.requireInput('?')
  },
})

const TOKENS = {
  alice: { owner: 'alice' },
  'alice-t2': { owner: 'alice', tenant: 't2' },
  'alice-read': { owner: 'alice', scopes: ['read'] },
  'alice-read-again': { owner: 'alice', scopes: ['read', 'read'] },
  'alice-rw': { owner: 'alice', scopes: ['write', 'read'] },
  'alice-wr': { owner: 'alice', scopes: ['read', 'write'] },
  'alice-none': { owner: 'alice', scopes: [] },
  bob: { owner: 'bob' },
  'bob-t2': { owner: 'bob', tenant: 't2' },
}

/** A store that declares no tenant or scope filtering, so the exchange must filter by walking. */
class UnfilteringStore extends MemoryStore {
  override readonly capabilities = { filtersTenant: false, filtersScope: false }
}

const STORES: [string, () => Store][] = [
  ['a filtering store', () => new MemoryStore()],
  ['a store that filters nothing', () => new UnfilteringStore()],
]
const CASES = EVERY_BINDING.flatMap((binding) => STORES.map(([name, makeStore]): [Binding, string, () => Store] => [binding, name, makeStore]))

describe.each(CASES)('over %s with %s', (binding, _name, makeStore) => {
  let server: TestServer
  let client: BindingClient
  const made: Record<string, string> = {}

  beforeAll(async () => {
    server = await startTestServer({ skills: [ask], tokens: TOKENS, store: makeStore(), grpc: binding === 'GRPC' })
    client = server.client(binding, wireCheck)
    for (const token of ['alice', 'alice-t2', 'alice-read', 'alice-rw', 'bob']) {
      made[token] = (await client.result('SendMessage', { message: userMessage(token) }, { token })).task.id
    }
  })
  afterAll(() => server.close())

  // Who sees which creator's task.
  const MATRIX: Record<string, string[]> = {
    alice: ['alice', 'alice-read', 'alice-rw'],
    'alice-t2': ['alice-t2'],
    'alice-read': ['alice-read'],
    'alice-read-again': ['alice-read'],
    'alice-rw': ['alice-rw'],
    'alice-wr': ['alice-rw'],
    'alice-none': [],
    bob: ['bob'],
    'bob-t2': [],
  }

  describe('owner × tenant × scope isolation', () => {
    it.each(Object.entries(MATRIX))('%s lists exactly the tasks it may see, and counts no others', async (token, visible) => {
      const page = await client.result('ListTasks', {}, { token })
      expect(page.tasks.map((t: any) => t.id).sort()).toEqual(visible.map((creator) => made[creator]).sort())
      expect(page.totalSize).toBe(visible.length)
    })

    it.each(Object.entries(MATRIX))('%s gets -32001, exactly like an unknown id, for every task it may not see', async (token, visible) => {
      for (const [creator, id] of Object.entries(made)) {
        const get = await client.call('GetTask', { id }, { token })
        if (visible.includes(creator)) {
          expect(get.result.id).toBe(id)
          continue
        }
        // The same status and error as for an id that never existed, but for the id itself.
        const unknown = await client.call('GetTask', { id: `${id}x` }, { token })
        expect(get.status).toBe(unknown.status)
        expect(JSON.stringify(get.body.error)).toBe(JSON.stringify(unknown.body.error).replaceAll(`${id}x`, id))
        expect((await client.call('CancelTask', { id }, { token })).error?.reason).toBe('TASK_NOT_FOUND')
        expect((await client.call('SendMessage', { message: userMessage('answer', { taskId: id }) }, { token })).error?.reason).toBe('TASK_NOT_FOUND')
        expect((await client.call('ListTaskPushNotificationConfigs', { taskId: id }, { token })).error?.reason).toBe('TASK_NOT_FOUND')
      }
    })

    it('keeps the creation-time scope set when a session resumes a scoped task', async () => {
      const scoped = (await client.result('SendMessage', { message: userMessage('q') }, { token: 'alice-read' })).task
      const resumed = (await client.result('SendMessage', { message: userMessage('a', { taskId: scoped.id }) }, { token: 'alice' })).task
      expect(resumed.status.state).toBe('TASK_STATE_COMPLETED')
      expect((await client.result('GetTask', { id: scoped.id }, { token: 'alice-read' })).status.state).toBe('TASK_STATE_COMPLETED')
      expect((await client.call('GetTask', { id: scoped.id }, { token: 'alice-rw' })).error?.reason).toBe('TASK_NOT_FOUND')
    })

    it('scopes messageId idempotency to what the caller can see', async () => {
      const message = userMessage('same id')
      const t2 = (await client.result('SendMessage', { message }, { token: 'alice-t2' })).task
      const home = (await client.result('SendMessage', { message }, { token: 'alice' })).task
      expect(home.id).not.toBe(t2.id)
      expect((await client.result('SendMessage', { message }, { token: 'alice' })).task.id).toBe(home.id)
    })

    it("refuses another owner's task on a stream exactly like an unknown one", async () => {
      const subscribe = await client.stream('SubscribeToTask', { id: made.bob! }, { token: 'alice' })
      const unknown = await client.stream('SubscribeToTask', { id: `${made.bob}x` }, { token: 'alice' })
      expect(subscribe.status).toBe(unknown.status)
      expect(JSON.stringify(subscribe.body.error)).toBe(JSON.stringify(unknown.body.error).replaceAll(`${made.bob}x`, made.bob!))
    })
  })
})
