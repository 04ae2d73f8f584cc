/**
 * An in-process store for tests and single-process apps. It forgets everything on restart.
 * Records are copied in and out, so no caller can change a stored task behind the store's back.
 * @module
 */
import type { Viewer } from '../auth/principal.js'
import { assertJsonEncodable } from '../wire/json-safe.js'
import { isTerminal } from '../wire/types.js'
import { compareNewestFirst, decodeCursor, encodeCursor, isAfter, type Keyset } from './cursor.js'
import { statusTime, type ListPage, type ListQuery, type Store, type TaskChanges, type TaskRecord } from './store.js'

export class MemoryStore implements Store {
  readonly capabilities = { filtersTenant: true, filtersScope: true }
  readonly #tasks = new Map<string, TaskRecord>()
  readonly #byOwner = new Map<string, Set<string>>()

  async create(record: TaskRecord): Promise<void> {
    if (this.#tasks.has(record.id)) throw new Error(`task ${record.id} already exists`)
    assertJsonEncodable(record.task, 'task')
    this.#tasks.set(record.id, structuredClone(record))
    let ids = this.#byOwner.get(record.owner)
    if (!ids) this.#byOwner.set(record.owner, (ids = new Set()))
    ids.add(record.id)
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const record = this.#tasks.get(id)
    return record && structuredClone(record)
  }

  async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    const current = this.#tasks.get(id)
    if (!current || current.version !== expectedVersion) return undefined
    assertJsonEncodable(changes.task, 'task')
    const next: TaskRecord = {
      ...current,
      task: structuredClone(changes.task),
      messageIds: changes.messageIds ? [...changes.messageIds] : current.messageIds,
      repliedWithMessage: changes.repliedWithMessage ?? current.repliedWithMessage,
      version: current.version + 1,
      updatedAt: Math.max(Date.now(), current.updatedAt),
    }
    this.#tasks.set(id, next)
    return structuredClone(next)
  }

  async list(query: ListQuery): Promise<ListPage> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
    const matches: { key: Keyset; record: TaskRecord }[] = []
    for (const id of this.#byOwner.get(query.owner) ?? []) {
      const record = this.#tasks.get(id)!
      if (query.tenant !== undefined && record.tenant !== query.tenant) continue
      if (query.scope !== undefined && record.scope !== query.scope) continue
      if (query.contextId !== undefined && record.contextId !== query.contextId) continue
      if (query.states && !query.states.includes(record.task.status.state)) continue
      const key = { time: statusTime(record), id }
      if (query.statusAfter !== undefined && key.time < query.statusAfter) continue
      matches.push({ key, record })
    }
    matches.sort((a, b) => compareNewestFirst(a.key, b.key))
    const start = after ? matches.findIndex((m) => isAfter(m.key, after)) : 0
    const page = start < 0 ? [] : matches.slice(start, start + query.pageSize)
    const last = page.at(-1)
    const more = start >= 0 && start + query.pageSize < matches.length
    return {
      records: page.map((m) => structuredClone(m.record)),
      total: matches.length,
      ...(more && last ? { nextCursor: encodeCursor(last.key) } : {}),
    }
  }

  async delete(id: string): Promise<void> {
    const record = this.#tasks.get(id)
    if (!record) return
    this.#tasks.delete(id)
    this.#byOwner.get(record.owner)?.delete(id)
  }

  async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    const found: TaskRecord[] = []
    for (const id of this.#byOwner.get(owner) ?? []) {
      const record = this.#tasks.get(id)!
      if (record.messageIds.includes(messageId)) found.push(structuredClone(record))
    }
    return found
  }

  async trimSettled(tier: Viewer, keep: number): Promise<string[]> {
    const settled: { key: Keyset; id: string }[] = []
    for (const id of this.#byOwner.get(tier.owner) ?? []) {
      const record = this.#tasks.get(id)!
      if (record.tenant !== tier.tenant || record.scope !== tier.scope || !isTerminal(record.task.status.state)) continue
      settled.push({ key: { time: statusTime(record), id }, id })
    }
    if (settled.length <= keep) return []
    settled.sort((a, b) => compareNewestFirst(a.key, b.key))
    const doomed = settled.slice(keep).map((s) => s.id)
    for (const id of doomed) await this.delete(id)
    return doomed
  }
}
