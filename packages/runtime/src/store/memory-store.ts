/**
 * An in-process store for tests and single-process apps. It forgets everything on restart.
 * Task bodies are kept as JSON text: every read parses a fresh copy and every write serializes one,
 * so no caller can change a stored task behind the store's back, at one encode per write. That
 * work is all CPU (a database store's I/O gives other requests their turn meanwhile), so a large
 * body's encode or parse ends the turn it ran in.
 * @module
 */
import type { Viewer } from '../core/principal.js'
import { LARGE_TEXT, nextTurn } from '../core/turns.js'
import { extended } from '../wire/copy.js'
import { encodeJson, rememberText } from '../wire/json-safe.js'
import { isTerminal, type Task, type TaskState } from '../wire/types.js'
import { compareNewestFirst, decodeCursor, encodeCursor, isAfter, type Keyset } from './cursor.js'
import { type ListPage, type ListQuery, type PushConfigRecord, type Store, type TaskChanges, type TaskRecord, tierKey, versionsOf } from './store.js'

interface Entry {
  meta: Omit<TaskRecord, 'task' | 'messageIds'>
  messageIds: readonly string[]
  body: string
  state: TaskState
  /** Status time in epoch ms, parsed once per write. */
  time: number
  /** The tier's key in #settled, made once at create: the coordinates never change. */
  tier: string
}

const encode = (task: Task): string => encodeJson(task, 'task')

let lastTimestamp: string | undefined
let lastMs = Number.NaN

/** taskTime (store.ts), with the last timestamp's parse kept: a run's writes within one millisecond share it. */
function statusMs(task: Task, fallback: number): number {
  const timestamp = task.status.timestamp
  if (timestamp === undefined) return fallback
  if (timestamp !== lastTimestamp) {
    const parsed = Date.parse(timestamp)
    if (Number.isNaN(parsed)) return fallback
    lastTimestamp = timestamp
    lastMs = parsed
  }
  return lastMs
}

/** A record handed out: copies of the metadata (in one spread), the lease and the message ids. */
function recordOf(meta: Entry['meta'], task: Task, messageIds: readonly string[]): TaskRecord {
  const record: TaskRecord = extended(meta, { task, messageIds: [...messageIds] })
  if (meta.lease) record.lease = { ...meta.lease }
  return record
}

/** The states a run holds a task in: what an expired lease leaves behind. */
const RUNNING: ReadonlySet<TaskState> = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'])

const copyConfig = (record: PushConfigRecord): PushConfigRecord => {
  const { authentication, ...rest } = record
  return authentication ? { ...rest, authentication: { ...authentication } } : rest
}

export class MemoryStore implements Store {
  readonly capabilities: NonNullable<Store['capabilities']> = ['filtersTenant', 'filtersScope', 'oneProcess', 'leases', 'pushHints', 'trims']
  readonly #entries = new Map<string, Entry>()
  readonly #byOwner = new Map<string, Set<string>>()
  /**
   * owner → messageId → the ids of the tasks holding it, for idempotent sends: one id as itself
   * (almost every message makes one task), more in a Set. Keyed by the id strings as they are,
   * which cache their hashes, rather than by a string built from both for every lookup.
   */
  readonly #byMessage = new Map<string, Map<string, string | Set<string>>>()
  /** Per tier, its settled tasks oldest first: a settled task's status time no longer changes. */
  readonly #settled = new Map<string, Keyset[]>()
  /** taskId → config id → config. */
  readonly #pushConfigs = new Map<string, Map<string, PushConfigRecord>>()

  async create(record: TaskRecord): Promise<void> {
    if (this.#entries.has(record.id)) throw new Error(`task ${record.id} already exists`)
    const { task, messageIds, ...meta } = record
    const body = encode(task)
    // An answer sending this very object (a task inserted in its final state) reuses the text.
    rememberText(task, body)
    // The rest of the record is a fresh object already; the lease, its one nested object, is copied in and out like the task.
    if (meta.lease) meta.lease = { ...meta.lease }
    const entry: Entry = {
      meta,
      messageIds: [...messageIds],
      body,
      state: task.status.state,
      time: statusMs(task, record.updatedAt),
      tier: tierKey(record.owner, record.tenant, record.scope),
    }
    this.#entries.set(record.id, entry)
    let ids = this.#byOwner.get(record.owner)
    if (!ids) this.#byOwner.set(record.owner, (ids = new Set()))
    ids.add(record.id)
    this.#indexMessages(entry, entry.messageIds)
    this.#trackSettled(undefined, entry)
    if (entry.body.length >= LARGE_TEXT) await nextTurn()
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(id)
    if (!entry) return undefined
    const record = this.#toRecord(entry)
    if (entry.body.length >= LARGE_TEXT) await nextTurn()
    return record
  }

  async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    const current = this.#entries.get(id)
    if (!current || current.meta.version !== expectedVersion) return undefined
    const body = encode(changes.task)
    // The run's answer sends this very object: its text serves (see rememberText).
    rememberText(changes.task, body)
    const meta = { ...current.meta, version: current.meta.version + versionsOf(changes), updatedAt: Math.max(Date.now(), current.meta.updatedAt) }
    if (changes.repliedWithMessage !== undefined) meta.repliedWithMessage = changes.repliedWithMessage
    if (changes.lease === null) delete meta.lease
    else if (changes.lease) meta.lease = { ...changes.lease }
    const next: Entry = {
      meta,
      messageIds: changes.messageIds ? [...changes.messageIds] : current.messageIds,
      body,
      state: changes.task.status.state,
      time: statusMs(changes.task, meta.updatedAt),
      tier: current.tier,
    }
    this.#entries.set(id, next)
    this.#trackSettled(current, next)
    if (changes.messageIds) {
      this.#unindexMessages(current)
      this.#indexMessages(next, next.messageIds)
    }
    if (body.length >= LARGE_TEXT) await nextTurn()
    // The stored copy is the text; the caller's task object can go back to it as is.
    return recordOf(meta, changes.task, next.messageIds)
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
    const records = page.map((m) => this.#toRecord(m.entry))
    if (page.some((m) => m.entry.body.length >= LARGE_TEXT)) await nextTurn()
    return {
      records,
      total: matches.length,
      ...(more && last ? { nextCursor: encodeCursor(last.key) } : {}),
    }
  }

  async delete(id: string): Promise<void> {
    this.#remove(id)
  }

  #remove(id: string): void {
    const entry = this.#entries.get(id)
    if (!entry) return
    this.#entries.delete(id)
    this.#byOwner.get(entry.meta.owner)?.delete(id)
    this.#unindexMessages(entry)
    this.#trackSettled(entry, undefined)
    this.#pushConfigs.delete(id)
  }

  async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    const ids = this.#byMessage.get(owner)?.get(messageId)
    if (ids === undefined) return []
    const entries = typeof ids === 'string' ? [this.#entries.get(ids)!] : [...ids].map((id) => this.#entries.get(id)!)
    const records = entries.map((entry) => this.#toRecord(entry))
    if (entries.some((entry) => entry.body.length >= LARGE_TEXT)) await nextTurn()
    return records
  }

  async renewLeases(runner: string, taskIds: readonly string[], until: number): Promise<void> {
    for (const id of taskIds) {
      const lease = this.#entries.get(id)?.meta.lease
      if (lease?.runner === runner) lease.until = until
    }
  }

  async expiredRuns(now: number, limit: number): Promise<TaskRecord[]> {
    const expired = [...this.#entries.values()].filter((entry) => RUNNING.has(entry.state) && (entry.meta.lease?.until ?? -Infinity) < now)
    expired.sort((a, b) => (a.meta.lease?.until ?? -Infinity) - (b.meta.lease?.until ?? -Infinity))
    return expired.slice(0, limit).map((entry) => this.#toRecord(entry))
  }

  async trimSettled(tier: Viewer, keep: number): Promise<string[]> {
    const settled = this.#settled.get(tierKey(tier.owner, tier.tenant, tier.scope))
    if (!settled || settled.length <= keep) return []
    const doomed = settled.slice(0, settled.length - Math.max(keep, 0)).map((key) => key.id)
    // Removed in one go: a promise per task would cost more than its removal.
    for (const id of doomed) this.#remove(id)
    return doomed
  }

  async putPushConfig(record: PushConfigRecord): Promise<void> {
    let configs = this.#pushConfigs.get(record.taskId)
    if (!configs) this.#pushConfigs.set(record.taskId, (configs = new Map()))
    configs.set(record.id, copyConfig(record))
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined> {
    const record = this.#pushConfigs.get(taskId)?.get(id)
    return record && copyConfig(record)
  }

  noPushConfigsFor(taskId: string): boolean {
    return !this.#pushConfigs.has(taskId)
  }

  async listPushConfigs(taskId: string): Promise<PushConfigRecord[]> {
    const held = this.#pushConfigs.get(taskId)
    // Asked after every event of every task; most have none.
    if (!held) return []
    const configs = [...held.values()]
    return configs.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(copyConfig)
  }

  async deletePushConfig(taskId: string, id: string): Promise<void> {
    const configs = this.#pushConfigs.get(taskId)
    configs?.delete(id)
    if (configs?.size === 0) this.#pushConfigs.delete(taskId)
  }

  async deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void> {
    for (const id of taskIds) this.#pushConfigs.delete(id)
  }

  /** Keeps the per-tier settled lists in step with an entry's move between states. */
  #trackSettled(before: Entry | undefined, after: Entry | undefined): void {
    const was = before && isTerminal(before.state)
    const is = after && isTerminal(after.state)
    if (was && !(is && before.time === after!.time)) {
      const list = this.#settled.get(before.tier)!
      list.splice(
        list.findIndex((key) => key.id === before.meta.id),
        1,
      )
    }
    if (is && !(was && before!.time === after.time)) {
      const tier = after.tier
      let list = this.#settled.get(tier)
      if (!list) this.#settled.set(tier, (list = []))
      const key = { time: after.time, id: after.meta.id }
      // Usually the newest, so search from the end.
      let at = list.length
      while (at > 0 && compareNewestFirst(list[at - 1]!, key) < 0) at--
      list.splice(at, 0, key)
    }
  }

  #indexMessages(entry: Entry, messageIds: readonly string[]): void {
    const { owner, id } = entry.meta
    let owned = this.#byMessage.get(owner)
    if (!owned) this.#byMessage.set(owner, (owned = new Map()))
    for (const messageId of messageIds) {
      const ids = owned.get(messageId)
      if (ids === undefined || ids === id) owned.set(messageId, id)
      else if (typeof ids === 'string') owned.set(messageId, new Set([ids, id]))
      else ids.add(id)
    }
  }

  #unindexMessages(entry: Entry): void {
    const { owner, id } = entry.meta
    const owned = this.#byMessage.get(owner)
    if (!owned) return
    for (const messageId of entry.messageIds) {
      const ids = owned.get(messageId)
      if (ids === id) owned.delete(messageId)
      else if (typeof ids === 'object') {
        ids.delete(id)
        if (ids.size === 1) owned.set(messageId, ids.values().next().value!)
      }
    }
    if (owned.size === 0) this.#byMessage.delete(owner)
  }

  #toRecord(entry: Entry): TaskRecord {
    const task = JSON.parse(entry.body) as Task
    rememberText(task, entry.body)
    return recordOf(entry.meta, task, entry.messageIds)
  }
}
