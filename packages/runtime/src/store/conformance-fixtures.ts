/**
 * Builders and helpers for the store conformance suite. Times are fixed epoch values, never the
 * wall clock, so ordering checks do not depend on how fast the test runs.
 * @module
 */
import { expect } from 'vitest'
import type { Viewer } from '../core/principal.js'
import type { Task, TaskState } from '../wire/types.js'
import type { ListPage, ListQuery, PushConfigRecord, Store, TaskChanges, TaskRecord } from './store.js'

/** A query (owner alice, page of 100 unless given) and the ids it must return, in order. */
export type ListCase = [query: Partial<ListQuery>, expected: string[]]

/** 2025-01-01T00:00:00.000Z; fixture times are offsets from it. */
export const T0 = Date.UTC(2025, 0, 1)

export const iso = (time: number): string => new Date(time).toISOString()

/**
 * createdAt/updatedAt of every fixture, before and unrelated to any status time, so a store that
 * orders or filters on updatedAt instead of the status timestamp fails.
 */
export const WRITTEN = T0 - 60_000

export interface RecordSpec {
  id: string
  owner?: string
  tenant?: string | null
  scope?: string | null
  state?: TaskState
  /** Epoch ms of the status timestamp. */
  time?: number
  contextId?: string
  messageIds?: string[]
  skill?: string
  repliedWithMessage?: boolean
}

export function makeRecord(spec: RecordSpec): TaskRecord {
  const { id, owner = 'alice', tenant = null, scope = null, state = 'TASK_STATE_COMPLETED', time = T0 } = spec
  const contextId = spec.contextId ?? `ctx-${id}`
  const messageIds = spec.messageIds ?? [`msg-${id}`]
  const task: Task = {
    id,
    contextId,
    status: { state, timestamp: iso(time) },
    history: [{ messageId: messageIds[0] ?? `msg-${id}`, role: 'ROLE_USER', parts: [{ text: `hello from ${id}` }], contextId, taskId: id }],
  }
  return {
    id,
    contextId,
    owner,
    tenant,
    scope,
    skill: spec.skill ?? 'echo',
    version: 1,
    task,
    messageIds,
    ...(spec.repliedWithMessage !== undefined ? { repliedWithMessage: spec.repliedWithMessage } : {}),
    createdAt: WRITTEN,
    updatedAt: WRITTEN,
  }
}

/** The record's task moved to a new state at a new time, as a handler would write it. */
export function nextTask(record: TaskRecord, state: TaskState, time: number): Task {
  return {
    ...structuredClone(record.task),
    status: { state, timestamp: iso(time) },
    artifacts: [{ artifactId: `art-${record.id}`, parts: [{ text: 'done' }, { data: { n: 1, ok: true } }] }],
  }
}

/** A task carrying a value JSON cannot encode in an artifact part's data. */
/**
 * What no store may keep, each refused alike: values JSON cannot carry, and strings PostgreSQL
 * refuses (U+0000, lone surrogates) that SQLite and memory would otherwise keep.
 */
export const UNENCODABLE_KINDS = ['nan', 'cycle', 'nul text', 'lone surrogate text', 'nul metadata key', 'lone surrogate message id'] as const
export type UnencodableKind = (typeof UNENCODABLE_KINDS)[number]

export function unencodableTask(record: TaskRecord, kind: UnencodableKind): Task {
  const task = structuredClone(record.task)
  const data: Record<string, unknown> = { n: 1 }
  switch (kind) {
    case 'nan':
      data.n = Number.NaN
      break
    case 'cycle':
      data.self = data
      break
    case 'nul text':
      return { ...task, artifacts: [{ artifactId: 'bad', parts: [{ text: 'a\u0000b' }] }] }
    case 'lone surrogate text':
      return { ...task, artifacts: [{ artifactId: 'bad', parts: [{ text: 'a\ud800' }] }] }
    case 'nul metadata key':
      return { ...task, metadata: { 'k\u0000': 1 } }
    case 'lone surrogate message id':
      return { ...task, history: [{ messageId: '\udc00', role: 'ROLE_USER', parts: [{ text: 'x' }] }] }
  }
  return { ...task, artifacts: [{ artifactId: 'bad', parts: [{ data }] }] }
}

export async function seed(store: Store, records: TaskRecord[]): Promise<void> {
  for (const record of records) await store.create(record)
}

export const ids = (page: ListPage | TaskRecord[]): string[] => ('records' in page ? page.records : page).map((r) => r.id)

/** Walks every page of a query; returns the pages in order. Stops after 1000 pages in case a store loops. */
export async function walk(store: Store, query: ListQuery): Promise<ListPage[]> {
  const pages: ListPage[] = []
  let cursor: string | undefined
  do {
    const page = await store.list({ ...query, ...(cursor !== undefined ? { cursor } : {}) })
    pages.push(page)
    cursor = page.nextCursor
  } while (cursor !== undefined && pages.length < 1000)
  return pages
}

/**
 * Seven of alice's records with ties on purpose, so page boundaries fall inside a tie, plus one
 * of bob's that is newer than all of them. `order` is the expected newest-first order.
 */
export function orderingFixture(): { records: TaskRecord[]; order: string[] } {
  const records = [
    makeRecord({ id: 'task-c', time: T0 + 3000 }),
    makeRecord({ id: 'task-a', time: T0 + 5000 }),
    makeRecord({ id: 'task-g', time: T0 + 1000 }),
    makeRecord({ id: 'task-e', time: T0 + 5000 }),
    makeRecord({ id: 'task-b', time: T0 + 3000 }),
    makeRecord({ id: 'task-f', time: T0 + 9000 }),
    makeRecord({ id: 'task-d', time: T0 + 5000 }),
    makeRecord({ id: 'bob-1', owner: 'bob', time: T0 + 20_000 }),
  ]
  return { records, order: ['task-f', 'task-e', 'task-d', 'task-a', 'task-c', 'task-b', 'task-g'] }
}

export const TERMINAL: readonly TaskState[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']
export const NON_TERMINAL: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']

/** The fields an update must never change. */
export const coordinates = (r: TaskRecord) => ({ id: r.id, owner: r.owner, tenant: r.tenant, scope: r.scope, skill: r.skill, createdAt: r.createdAt, contextId: r.contextId })

/** Lists each case's query; the page must hold exactly its ids and the total count them. */
export async function expectCases(store: Store, cases: ListCase[]): Promise<void> {
  for (const [query, expected] of cases) {
    const page = await store.list({ owner: 'alice', pageSize: 100, ...query })
    expect(ids(page), JSON.stringify(query)).toEqual(expected)
    expect(page.total, JSON.stringify(query)).toBe(expected.length)
  }
}

/** Alice's tasks across two contexts and four states, and one of bob's. */
export const filterFixture = (): TaskRecord[] => [
  makeRecord({ id: 't1', contextId: 'ctx-1', state: 'TASK_STATE_WORKING', time: T0 + 1000 }),
  makeRecord({ id: 't2', contextId: 'ctx-1', state: 'TASK_STATE_COMPLETED', time: T0 + 2000 }),
  makeRecord({ id: 't3', contextId: 'ctx-2', state: 'TASK_STATE_INPUT_REQUIRED', time: T0 + 3000 }),
  makeRecord({ id: 't4', contextId: 'ctx-2', state: 'TASK_STATE_FAILED', time: T0 + 4000 }),
  makeRecord({ id: 'b1', owner: 'bob', contextId: 'ctx-1', state: 'TASK_STATE_WORKING', time: T0 + 5000 }),
]

export const filterCases: ListCase[] = [
  [{ contextId: 'ctx-1' }, ['t2', 't1']],
  [{ contextId: 'ctx-none' }, []],
  [{ states: ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'] }, ['t3', 't1']],
  [{ states: ['TASK_STATE_CANCELED'] }, []],
  // statusAfter is inclusive: a task stamped exactly then is in.
  [{ statusAfter: T0 + 2000 }, ['t4', 't3', 't2']],
  [{ statusAfter: T0 + 2001 }, ['t4', 't3']],
  [{ contextId: 'ctx-2', states: ['TASK_STATE_FAILED', 'TASK_STATE_WORKING'], statusAfter: T0 + 1000, pageSize: 1 }, ['t4']],
  [{ owner: 'bob', contextId: 'ctx-1', states: ['TASK_STATE_WORKING'] }, ['b1']],
]

/** Alice's tasks in tenants acme, globex and none (one acme task scoped), and one of bob's. */
export const tenantFixture = (): TaskRecord[] => [
  makeRecord({ id: 'acme-1', tenant: 'acme', time: T0 + 1000 }),
  makeRecord({ id: 'acme-2', tenant: 'acme', scope: 'read', time: T0 + 2000 }),
  makeRecord({ id: 'globex-1', tenant: 'globex', time: T0 + 3000 }),
  makeRecord({ id: 'none-1', tenant: null, time: T0 + 4000 }),
  makeRecord({ id: 'bob-acme', owner: 'bob', tenant: 'acme', time: T0 + 5000 }),
]

export const tenantCases: ListCase[] = [
  [{ tenant: 'acme' }, ['acme-2', 'acme-1']],
  [{ tenant: 'globex' }, ['globex-1']],
  [{ tenant: null }, ['none-1']],
  [{ tenant: 'ac' }, []],
  [{}, ['none-1', 'globex-1', 'acme-2', 'acme-1']],
]

/** Alice's tasks under a session, scope 'read' (one in acme) and 'read write', and one of bob's. */
export const scopeFixture = (): TaskRecord[] => [
  makeRecord({ id: 'session-1', scope: null, time: T0 + 1000 }),
  makeRecord({ id: 'read-1', scope: 'read', time: T0 + 2000 }),
  makeRecord({ id: 'read-2', scope: 'read', tenant: 'acme', time: T0 + 3000 }),
  makeRecord({ id: 'rw-1', scope: 'read write', time: T0 + 4000 }),
  makeRecord({ id: 'bob-read', owner: 'bob', scope: 'read', time: T0 + 5000 }),
]

export const scopeCases: ListCase[] = [
  [{ scope: null }, ['session-1']],
  [{ scope: 'read' }, ['read-2', 'read-1']],
  [{ scope: 'read write' }, ['rw-1']],
  [{ scope: 'write' }, []],
  [{}, ['rw-1', 'read-2', 'read-1', 'session-1']],
]

/** The tier the trim checks work on: a session's tasks in tenant acme. */
export const TRIM_TIER: Viewer = { owner: 'alice', tenant: 'acme', scope: null }

/**
 * TRIM_TIER's four terminal records (done-0 oldest) and four in-flight ones, plus one record in
 * each neighbouring tier. In-flight and other tiers are older than every terminal record, so a
 * trim that ignored state or tier would take them first.
 */
export function trimFixture(): { inFlight: TaskRecord[]; settled: TaskRecord[]; others: TaskRecord[] } {
  const tier = TRIM_TIER
  return {
    inFlight: NON_TERMINAL.map((state, i) => makeRecord({ id: `live-${i}`, ...tier, state, time: T0 + i })),
    settled: TERMINAL.map((state, i) => makeRecord({ id: `done-${i}`, ...tier, state, time: T0 + 1000 * (i + 1) })),
    others: [
      makeRecord({ id: 'other-owner', ...tier, owner: 'bob', time: T0 - 50 }),
      makeRecord({ id: 'other-tenant', ...tier, tenant: 'globex', time: T0 - 40 }),
      makeRecord({ id: 'no-tenant', ...tier, tenant: null, time: T0 - 30 }),
      makeRecord({ id: 'scoped', ...tier, scope: 'read', time: T0 - 20 }),
    ],
  }
}

/** Changes that also try to rewrite every coordinate; a store must ignore all but the task. */
export const sneakyChanges = (task: Task): TaskChanges =>
  ({ task, owner: 'mallory', tenant: 'evil', scope: null, skill: 'x', createdAt: 1, contextId: 'ctx-x', id: 'other', version: 42 }) as any

/** Strings no store issues as cursors, including an issued cursor with junk after it. */
export const forgedCursors = (issued: string): string[] => ['not-a-cursor', '', '!!!', '{}', `${issued}!!`, `${issued}${issued}`]

/** Asserts each record is still stored exactly as given. */
export async function expectStored(store: Store, records: TaskRecord[]): Promise<void> {
  for (const r of records) expect(await store.get(r.id), r.id).toEqual(r)
}

export const sortedIds = async (deleted: Promise<string[]>): Promise<string[]> => [...(await deleted)].sort()

/** A push config on a task of alice's; `at` offsets createdAt from WRITTEN. */
export function makePushConfig(taskId: string, id: string, at = 0, extra: Partial<PushConfigRecord> = {}): PushConfigRecord {
  return { id, taskId, owner: 'alice', url: `https://hooks.example.com/${taskId}/${id}`, createdAt: WRITTEN + at, ...extra }
}

export const configIds = (configs: PushConfigRecord[]): string[] => configs.map((c) => c.id)
