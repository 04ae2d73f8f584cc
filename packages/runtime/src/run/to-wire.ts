/**
 * Projects a stored record onto the wire Task a caller asked for: `historyLength` (unset = all,
 * 0 = none, n = the last n) and artifacts only when wanted. Empty lists are omitted, as ProtoJSON
 * omits unset repeated fields.
 * @module
 */
import type { TaskRecord } from '../store/store.js'
import { rememberedText, rememberText } from '../wire/json-safe.js'
import type { Task } from '../wire/types.js'

export interface TaskView {
  historyLength?: number | undefined
  includeArtifacts?: boolean
}

export function toWireTask(record: TaskRecord, view: TaskView = {}): Task {
  const { history, artifacts, metadata } = record.task
  // Member by member (a Task has these six): a rest spread is a runtime call on every answer.
  const out: Task = { id: record.task.id, contextId: record.task.contextId, status: record.task.status }
  if (metadata !== undefined) out.metadata = metadata
  const kept = view.historyLength === undefined ? history : view.historyLength === 0 ? undefined : history?.slice(-view.historyLength)
  if (kept?.length) out.history = kept
  if (view.includeArtifacts !== false && artifacts?.length) out.artifacts = artifacts
  // The same content as the stored task (only the member order may differ): its stored text serves.
  const text = rememberedText(record.task)
  if (text !== undefined && (history === undefined || out.history?.length === history.length) && out.artifacts === artifacts) rememberText(out, text)
  return out
}
