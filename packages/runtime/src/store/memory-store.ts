/**
 * An in-process store for tests and single-process apps. It forgets everything on restart.
 * Task bodies are kept as JSON text: every read parses a fresh copy and every write serializes one,
 * so no caller can change a stored task behind the store's back, at one encode per write.
 * @module
 */
import type { Viewer } from '../auth/principal.js'
import { assertJsonEncodable } from '../wire/json-safe.js'
import { isTerminal, type Task, type TaskState } from '../wire/types.js'
import { compareNewestFirst, decodeCursor, encodeCursor, isAfter, type Keyset } from './cursor.js'
import type { ListPage, ListQuery, Store, TaskChanges, TaskRecord } from './store.js'

interface Entry {
  meta: Omit<TaskRecord, 'task' | 'messageIds'>
  messageIds: readonly string[]
  body: string
  state: TaskState
  /** Status time in epoch ms, parsed once per write. */
  time: number
}

const encode = (task: Task): string => {
  assertJsonEncodable(task, 'task')
  return JSON.stringify(task)
}

const timeOf = (task: Task, fallback: number): number => {
  const parsed = Date.parse(task.status.timestamp ?? '')
  return Number.isNaN(parsed) ? fallback : parsed
}

export class MemoryStore implements Store {
  readonly capabilities = { filtersTenant: true, filtersScope: true }
  readonly #entries = new Map<string, Entry>()
  readonly #byOwner = new Map<string, Set<string>>()
  /** owner + messageId → task ids, for idempotent sends. */
  readonly #byMessage = new Map<string, Set<string>>()

  async create(record: TaskRecord): Promise<void> {
    if (this.#entries.has(record.id)) throw new Error(`task ${record.id} already exists`)
    const { task, messageIds, ...meta } = record
    const entry: Entry = { meta: { ...meta }, messageIds: [...messageIds], body: encode(task), state: task.status.state, time: timeOf(task, record.updatedAt) }
    this.#entries.set(record.id, entry)
    let ids = this.#byOwner.get(record.owner)
    if (!ids) this.#byOwner.set(record.owner, (ids = new Set()))
    ids.add(record.id)
    this.#indexMessages(entry, entry.messageIds)
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(id)
    return entry && this.#toRecord(entry)
  }

  async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    const current = this.#entries.get(id)
    if (!current || current.meta.version !== expectedVersion) return undefined
    const body = encode(changes.task)
    const meta = { ...current.meta, version: current.meta.version + 1, updatedAt: Math.max(Date.now(), current.meta.updatedAt) }
    if (changes.repliedWithMessage !== undefined) meta.repliedWithMessage = changes.repliedWithMessage
    const next: Entry = {
      meta,
      messageIds: changes.messageIds ? [...changes.messageIds] : current.messageIds,
      body,
      state: changes.task.status.state,
      time: timeOf(changes.task, meta.updatedAt),
    }
    this.#entries.set(id, next)
    if (changes.messageIds) {
      this.#unindexMessages(current)
      this.#indexMessages(next, next.messageIds)
    }
    return this.#toRecord(next)
  }

  async list(query: ListQuery): Promise<ListPage> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
    const matches: { key: Keyset; entry: Entry }[] = []
    for (const id of this.#byOwner.get(query.owner) ?? []) {
      const entry = this.#entries.get(id)!
      const { meta } = entry
      if (query.tenant !== undefined && meta.tenant !== query.tenant) continue
      if (query.scope !== undefined && meta.scope !== query.scope) continue
      if (query.contextId !== undefined && meta.contextId !== query.contextId) continue
      if (query.states && !query.states.includes(entry.state)) continue
      if (query.statusAfter !== undefined && entry.time < query.statusAfter) continue
      matches.push({ key: { time: entry.time, id }, entry })
    }
    matches.sort((a, b) => compareNewestFirst(a.key, b.key))
    const start = after ? matches.findIndex((m) => isAfter(m.key, after)) : 0
    const page = start < 0 ? [] : matches.slice(start, start + query.pageSize)
    const last = page.at(-1)
    const more = start >= 0 && start + query.pageSize < matches.length
    return {
      records: page.map((m) => this.#toRecord(m.entry)),
      total: matches.length,
      ...(more && last ? { nextCursor: encodeCursor(last.key) } : {}),
    }
  }

  async delete(id: string): Promise<void> {
    const entry = this.#entries.get(id)
    if (!entry) return
    this.#entries.delete(id)
    this.#byOwner.get(entry.meta.owner)?.delete(id)
    this.#unindexMessages(entry)
  }

  async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    const ids = this.#byMessage.get(`${owner}\u0000${messageId}`)
    return ids ? [...ids].map((id) => this.#toRecord(this.#entries.get(id)!)) : []
  }

  async trimSettled(tier: Viewer, keep: number): Promise<string[]> {
    const settled: Keyset[] = []
    for (const id of this.#byOwner.get(tier.owner) ?? []) {
      const { meta, state, time } = this.#entries.get(id)!
      if (meta.tenant === tier.tenant && meta.scope === tier.scope && isTerminal(state)) settled.push({ time, id })
    }
    if (settled.length <= keep) return []
    settled.sort(compareNewestFirst)
    const doomed = settled.slice(Math.max(keep, 0)).map((key) => key.id)
    for (const id of doomed) await this.delete(id)
    return doomed
  }

  #indexMessages(entry: Entry, messageIds: readonly string[]): void {
    for (const messageId of messageIds) {
      const key = `${entry.meta.owner}\u0000${messageId}`
      let ids = this.#byMessage.get(key)
      if (!ids) this.#byMessage.set(key, (ids = new Set()))
      ids.add(entry.meta.id)
    }
  }

  #unindexMessages(entry: Entry): void {
    for (const messageId of entry.messageIds) {
      const key = `${entry.meta.owner}\u0000${messageId}`
      const ids = this.#byMessage.get(key)
      ids?.delete(entry.meta.id)
      if (ids?.size === 0) this.#byMessage.delete(key)
    }
  }

  #toRecord(entry: Entry): TaskRecord {
    return { ...entry.meta, task: JSON.parse(entry.body) as Task, messageIds: [...entry.messageIds] }
  }
}
