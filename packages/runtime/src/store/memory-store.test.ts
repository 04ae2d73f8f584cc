import { describeStoreConformance } from './conformance.js'
import { MemoryStore } from './memory-store.js'
import type { ListPage, ListQuery, PushConfigRecord, Store, StoreCapabilities, TaskChanges, TaskRecord } from './store.js'

describeStoreConformance('MemoryStore', () => new MemoryStore())

/**
 * A store that declares no filtering and has no trimmer, as a minimal custom store would, so the
 * suite's capability-dependent checks take their skip branches.
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

