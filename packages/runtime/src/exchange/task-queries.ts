/**
 * GetTask, ListTasks and CancelTask. Every read is matched against the caller: another owner's,
 * tenant's or scope set's task answers exactly like an unknown id and is never listed or counted.
 * @module
 */
import { canSee, type Viewer } from '../auth/principal.js'
import { retain } from '../run/retain.js'
import { tierOf } from '../run/retention.js'
import { agentMessage, withStatus } from '../run/task-changes.js'
import { compareNewestFirst, decodeCursor, encodeCursor, isAfter } from '../store/cursor.js'
import { InvalidCursorError, statusTime, type ListQuery, type TaskRecord } from '../store/store.js'
import { writeTask } from '../store/write.js'
import { A2AError } from '../wire/a2a-error.js'
import type { ListTasksParams } from '../wire/params.js'
import { isTerminal, type ListTasksResponse, type Task } from '../wire/types.js'
import type { ExchangeCore } from './core.js'
import { toWireTask } from './to-wire.js'

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
    return { task: next.task }
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
  const { filtersTenant, filtersScope } = core.store.capabilities ?? {}
  const needsScope = viewer.scope !== null
  const fetchPage = async (size: number): Promise<{ records: TaskRecord[]; total: number; next: string | undefined }> => {
    if (!filtersTenant || (needsScope && !filtersScope)) return listByWalking(core, viewer, filter, size, params.pageToken)
    const page = await core.store.list({
      ...filter,
      tenant: viewer.tenant,
      ...(needsScope ? { scope: viewer.scope } : {}),
      pageSize: size,
      ...(params.pageToken ? { cursor: params.pageToken } : {}),
    })
    // A store that declares filtering but filters wrongly still hands out nothing foreign.
    return { records: page.records.filter((r) => canSee(viewer, tierOf(r))), total: page.total, next: page.nextCursor }
  }
  try {
    const page = await fetchPage(pageSize)
    const tasks = page.records.map((r) => toWireTask(r, { historyLength: params.historyLength, includeArtifacts }))
    const kept = withinBytes(tasks, core.limits.listTasksBytes)
    // A trimmed page ends at its last kept task: the store's own cursor for a page that size carries on.
    const next = kept < tasks.length ? (await fetchPage(kept)).next : page.next
    return { tasks: tasks.slice(0, kept), nextPageToken: next ?? '', pageSize, totalSize: page.total }
  } catch (error) {
    if (error instanceof InvalidCursorError) throw A2AError.invalidParams('params.pageToken', error.message)
    throw error
  }
}

/** How many leading tasks fit in `budget` bytes of JSON; at least one, so paging always moves on. */
function withinBytes(tasks: readonly Task[], budget: number): number {
  let bytes = 0
  for (let i = 0; i < tasks.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(tasks[i]))
    if (bytes > budget) return Math.max(i, 1)
  }
  return tasks.length
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
