import { describe, expect, it } from 'vitest'
import { makeRecord } from './conformance-fixtures.js'
import { describeStoreConformance } from './conformance.js'
import { MemoryStore } from './memory-store.js'
import type { ListPage, ListQuery, PushConfigRecord, Store, StoreCapabilities, TaskChanges, TaskRecord } from './store.js'

describeStoreConformance('MemoryStore', () => new MemoryStore(), { capabilities: ['filtersTenant', 'filtersScope', 'oneProcess', 'leases', 'pushHints', 'trims'] })

/**
 * A store of the core alone, declared the old way (flags, none set), as a minimal custom store
 * would be: every capability's section is skipped.
 */
class PlainStore implements Store {
  readonly capabilities: StoreCapabilities = {}
  readonly #inner = new MemoryStore()

  create(record: TaskRecord): Promise<void> {
    return this.#inner.create(record)
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return this.#inner.get(id)
  }

  update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    return this.#inner.update(id, expectedVersion, changes)
  }

  list(query: ListQuery): Promise<ListPage> {
    return this.#inner.list(query)
  }

  delete(id: string): Promise<void> {
    return this.#inner.delete(id)
  }

  findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    return this.#inner.findByMessageId(owner, messageId)
  }

  putPushConfig(record: PushConfigRecord): Promise<void> {
    return this.#inner.putPushConfig(record)
  }

  getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined> {
    return this.#inner.getPushConfig(taskId, id)
  }

  listPushConfigs(taskId: string): Promise<PushConfigRecord[]> {
    return this.#inner.listPushConfigs(taskId)
  }

  deletePushConfig(taskId: string, id: string): Promise<void> {
    return this.#inner.deletePushConfig(taskId, id)
  }

  deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void> {
    return this.#inner.deletePushConfigsOfTasks(taskIds)
  }
}

describeStoreConformance('MemoryStore without capabilities', () => new PlainStore())

describe('MemoryStore message index', () => {
  it('answers every task holding a message id, per owner, as tasks holding it come and go', async () => {
    const store = new MemoryStore()
    const ids = async (owner: string, messageId: string) => (await store.findByMessageId(owner, messageId)).map((r) => r.id).sort()
    await store.create(makeRecord({ id: 't1', messageIds: ['m'] }))
    await store.create(makeRecord({ id: 't2', messageIds: ['m', 'n'] }))
    await store.create(makeRecord({ id: 't3', messageIds: ['m'] }))
    await store.create(makeRecord({ id: 'b1', owner: 'bob', messageIds: ['m'] }))
    expect(await ids('alice', 'm')).toEqual(['t1', 't2', 't3'])
    expect(await ids('bob', 'm')).toEqual(['b1'])
    await store.delete('t1')
    await store.delete('t3')
    expect(await ids('alice', 'm')).toEqual(['t2'])
    // An update naming the task's message ids moves its index entries.
    const t2 = (await store.get('t2'))!
    await store.update('t2', t2.version, { task: t2.task, messageIds: ['n', 'o'] })
    expect(await ids('alice', 'm')).toEqual([])
    expect(await ids('alice', 'o')).toEqual(['t2'])
    await store.create(makeRecord({ id: 't4', messageIds: ['o'] }))
    expect(await ids('alice', 'o')).toEqual(['t2', 't4'])
    await store.delete('t2')
    await store.delete('t4')
    expect(await ids('alice', 'o')).toEqual([])
    expect(await ids('bob', 'm')).toEqual(['b1'])
  })
})
