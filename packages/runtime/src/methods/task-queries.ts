/**
 * GetTask, ListTasks and CancelTask. Every read is matched against the caller: another owner's,
 * tenant's or scope set's task answers exactly like an unknown id and is never listed or counted.
 * @module
 */
import { canSee, tierOf, type Viewer } from '../core/principal.js'
import { retain } from '../run/retain.js'
import { agentMessage, withStatus } from '../run/task-changes.js'
import { LARGE_TEXT, nextTurn } from '../core/turns.js'
import { compareNewestFirst, decodeCursor, encodeCursor, isAfter } from '../store/cursor.js'
import { InvalidCursorError, statusTime, type ListQuery, type TaskRecord } from '../store/store.js'
import { writeTask } from '../store/write.js'
import { capabilityOf } from '../store/capabilities.js'
import { A2AError } from '../wire/a2a-error.js'
import { cancelTaskParams, getTaskParams, listTasksParams, type ListTasksParams } from '../wire/params.js'
import { isTerminal, type ListTasksResponse, type Task } from '../wire/types.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { toWireTask } from '../run/to-wire.js'
import { parse, type Method } from './method.js'

export const GetTask: Method = () => (core, caller, raw) => getTask(core, caller.viewer, parse(core, getTaskParams, raw))

export const ListTasks: Method = () => (core, caller, raw) => listTasks(core, caller.viewer, parse(core, listTasksParams, raw))

export const CancelTask: Method = () => (core, caller, raw) => cancelTask(core, caller.viewer, parse(core, cancelTaskParams, raw))

/** The task `id` if `viewer` may see it; -32001 exactly like an unknown id otherwise. */
export async function findVisible(core: ExchangeCore, viewer: Viewer, id: string): Promise<TaskRecord> {
  const record = await core.store.get(id)
  if (!record || !canSee(viewer, tierOf(record))) throw A2AError.taskNotFound(id)
  return record
}

export async function getTask(core: ExchangeCore, viewer: Viewer, params: { id: string; historyLength?: number | undefined }): Promise<Task> {
  return toWireTask(await findVisible(core, viewer, params.id), { historyLength: params.historyLength })
}

export async function cancelTask(core: ExchangeCore, viewer: Viewer, params: { id: string }): Promise<Task> {
  const record = await findVisible(core, viewer, params.id)
  let event
  const outcome = await writeTask(core.store, record, (current) => {
    if (isTerminal(current.task.status.state)) return null
    const next = withStatus(current.task, 'TASK_STATE_CANCELED', agentMessage(current.task, 'canceled by the caller'))
    event = next.event
    return { task: next.task, event: next.event }
  })
  if ('gone' in outcome) throw A2AError.taskNotFound(params.id)
  if ('declined' in outcome) {
    const state = outcome.declined.task.status.state
    throw new A2AError('TASK_NOT_CANCELABLE', `Task ${params.id} is already ${state}; only a submitted, working or paused task can be canceled`, {
      metadata: { taskId: params.id, state },
    })
  }
  const canceled = outcome.written
  core.events.publish({ taskId: canceled.id, version: canceled.version, response: event! })
  const run = core.runs.get(canceled.id)
  if (run) {
    run.canceled(canceled)
    await run.done
  } else {
    await retain(core, canceled)
  }
  return toWireTask(canceled)
}

export async function listTasks(core: ExchangeCore, viewer: Viewer, params: ListTasksParams): Promise<ListTasksResponse> {
  const pageSize = params.pageSize ?? 50
  const includeArtifacts = params.includeArtifacts ?? false
  const filter: Omit<ListQuery, 'pageSize'> = {
    owner: viewer.owner,
    ...(params.contextId !== undefined ? { contextId: params.contextId } : {}),
    ...(params.status !== undefined ? { states: [params.status] } : {}),
    ...(params.statusTimestampAfter !== undefined ? { statusAfter: Date.parse(params.statusTimestampAfter) } : {}),
    includeArtifacts,
  }
  const [filtersTenant, filtersScope] = [capabilityOf(core.store, 'filtersTenant'), capabilityOf(core.store, 'filtersScope')]
  const needsScope = viewer.scope !== null
  const fetchPage = async (size: number, cursor: string | undefined): Promise<{ records: TaskRecord[]; total: number; next: string | undefined }> => {
    if (!filtersTenant || (needsScope && !filtersScope)) return listByWalking(core, viewer, filter, size, cursor)
    const page = await core.store.list({
      ...filter,
      tenant: viewer.tenant,
      ...(needsScope ? { scope: viewer.scope } : {}),
      pageSize: size,
      ...(cursor ? { cursor } : {}),
    })
    // A store that declares filtering but filters wrongly still hands out nothing foreign.
    return { records: page.records.filter((r) => canSee(viewer, tierOf(r))), total: page.total, next: page.nextCursor }
  }
  try {
    return await pageWithinBytes(pageSize, core.limits.listTasksBytes, params.pageToken || undefined, fetchPage, (r) =>
      toWireTask(r, { historyLength: params.historyLength, includeArtifacts }),
    )
  } catch (error) {
    if (error instanceof InvalidCursorError) throw A2AError.invalidParams('params.pageToken', error.message)
    throw error
  }
}

type FetchPage = (size: number, cursor: string | undefined) => Promise<{ records: TaskRecord[]; total: number; next: string | undefined }>

/**
 * Tasks read by the first store call, before any size is known: one, so a page of large tasks
 * reads (and a store decodes) little more than it answers; the next call is sized by it.
 */
const FIRST_BATCH = 1

/**
 * A page of at most `pageSize` tasks and `budget` bytes of JSON (at least one task, so paging
 * always moves on), read from the store in batches sized by the bytes left, so a page of large
 * tasks reads little more than it answers. A page ending early carries the store's own cursor for
 * where it ended.
 */
async function pageWithinBytes(
  pageSize: number,
  budget: number,
  pageToken: string | undefined,
  fetchPage: FetchPage,
  toWire: (record: TaskRecord) => Task,
): Promise<ListTasksResponse> {
  const tasks: Task[] = []
  let bytes = 0
  let total: number | undefined
  let cursor = pageToken
  let want = Math.min(pageSize, FIRST_BATCH)
  for (;;) {
    const page = await fetchPage(want, cursor)
    total ??= page.total
    let kept = 0
    for (const record of page.records) {
      const task = toWire(record)
      const size = Buffer.byteLength(JSON.stringify(task))
      // Encoding a large task is the long part of such a page: let other callers' requests run,
      // also before the answer's own encoding when this task does not fit.
      if (size >= LARGE_TEXT) await nextTurn()
      if (tasks.length > 0 && bytes + size > budget) {
        // The store's cursor after the last task kept: the same batch read up to there.
        const next = kept === 0 ? cursor : (await fetchPage(kept, cursor)).next
        return { tasks, nextPageToken: next ?? '', pageSize, totalSize: total }
      }
      tasks.push(task)
      bytes += size
      kept++
    }
    if (!page.next || tasks.length >= pageSize) return { tasks, nextPageToken: page.next ?? '', pageSize, totalSize: total }
    cursor = page.next
    const average = bytes / Math.max(tasks.length, 1)
    // Rounded down: a batch that overshoots is read again up to its last kept task for the cursor.
    want = Math.min(pageSize - tasks.length, Math.max(1, Math.floor((budget - bytes) / Math.max(average, 1))))
  }
}

/** For stores that cannot filter by tenant or scope: walk the owner's tasks and page here. */
async function listByWalking(core: ExchangeCore, viewer: Viewer, filter: Omit<ListQuery, 'pageSize'>, pageSize: number, pageToken: string | undefined) {
  const after = pageToken ? decodeCursor(pageToken) : undefined
  const visible: TaskRecord[] = []
  let cursor: string | undefined
  do {
    const page = await core.store.list({ ...filter, pageSize: 100, ...(cursor ? { cursor } : {}) })
    visible.push(...page.records.filter((r) => canSee(viewer, tierOf(r))))
    cursor = page.nextCursor
  } while (cursor)
  const keyOf = (r: TaskRecord) => ({ time: statusTime(r), id: r.id })
  visible.sort((a, b) => compareNewestFirst(keyOf(a), keyOf(b)))
  const start = after ? visible.findIndex((r) => isAfter(keyOf(r), after)) : 0
  const records = start < 0 ? [] : visible.slice(start, start + pageSize)
  const more = start >= 0 && start + pageSize < visible.length
  return { records, total: visible.length, next: more ? encodeCursor(keyOf(records.at(-1)!)) : undefined }
}
