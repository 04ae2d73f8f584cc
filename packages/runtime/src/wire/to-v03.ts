/**
 * 1.0 → 0.3 on the way out: results and stream events of the one method table, re-shaped for a
 * 0.3 client (`kind` discriminators, lowercase kebab states, `file` parts, `final` on status
 * updates, push configs nested under `pushNotificationConfig`). Here rather than in compat-v03/:
 * push delivery, below it, sends a 0.3 config's receiver the task in this shape too.
 * @module
 */
import type { Artifact, Message, Part, StreamResponse, Task, TaskPushNotificationConfig, TaskState, TaskStatus } from './types.js'
import { isPaused, isTerminal } from './types.js'

type Json = Record<string, unknown>

/** Which states end a 0.3 stream: `message/stream` stops at a pause too, `tasks/resubscribe` only at the end. */
export type StreamEnd = 'interrupted' | 'terminal'

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`; anything unknown is 0.3's `unknown`. */
export function stateToV03(state: TaskState | string): string {
  if (typeof state !== 'string' || !state.startsWith('TASK_STATE_') || state === 'TASK_STATE_UNSPECIFIED') return 'unknown'
  return state.slice('TASK_STATE_'.length).toLowerCase().replaceAll('_', '-')
}

export function partToV03(part: Part): Json {
  const out: Json =
    'text' in part
      ? { kind: 'text', text: part.text }
      : 'raw' in part || 'url' in part
        ? { kind: 'file', file: fileOf(part) }
        : // 0.3 data parts hold an object; another JSON value is carried under `value`.
          { kind: 'data', data: isObject((part as { data: unknown }).data) ? (part as { data: unknown }).data : { value: (part as { data: unknown }).data } }
  if (part.metadata !== undefined) out.metadata = part.metadata
  return out
}

function fileOf(part: Part): Json {
  const file: Json = 'raw' in part ? { bytes: part.raw } : { uri: (part as { url: string }).url }
  if (part.mediaType !== undefined) file.mimeType = part.mediaType
  if (part.filename !== undefined) file.name = part.filename
  return file
}

export function messageToV03(message: Message): Json {
  const out: Json = {
    kind: 'message',
    messageId: message.messageId,
    role: message.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: message.parts.map(partToV03),
  }
  copyDefined(message, out, ['contextId', 'taskId', 'metadata', 'extensions', 'referenceTaskIds'])
  return out
}

export function statusToV03(status: TaskStatus): Json {
  const out: Json = { state: stateToV03(status.state) }
  if (status.message) out.message = messageToV03(status.message)
  if (status.timestamp !== undefined) out.timestamp = status.timestamp
  return out
}

export function artifactToV03(artifact: Artifact): Json {
  const out: Json = { artifactId: artifact.artifactId, parts: artifact.parts.map(partToV03) }
  copyDefined(artifact, out, ['name', 'description', 'metadata', 'extensions'])
  return out
}

export function taskToV03(task: Task): Json {
  const out: Json = { kind: 'task', id: task.id, contextId: task.contextId, status: statusToV03(task.status) }
  if (task.history?.length) out.history = task.history.map(messageToV03)
  if (task.artifacts?.length) out.artifacts = task.artifacts.map(artifactToV03)
  if (task.metadata !== undefined) out.metadata = task.metadata
  return out
}

/** A SendMessage answer (`{task}` or `{message}`) as 0.3's bare Task or Message. */
export function sendResultToV03(result: { task: Task } | { message: Message }): Json {
  return 'task' in result ? taskToV03(result.task) : messageToV03(result.message)
}

/** One stream event; a status update says `final` when it is the stream's last. */
export function streamEventToV03(event: StreamResponse, end: StreamEnd): Json {
  if ('task' in event) return taskToV03(event.task)
  if ('message' in event) return messageToV03(event.message)
  if ('statusUpdate' in event) {
    const update = event.statusUpdate
    const state = update.status.state
    const final = isTerminal(state) || (end === 'interrupted' && isPaused(state))
    const out: Json = { kind: 'status-update', taskId: update.taskId, contextId: update.contextId, status: statusToV03(update.status), final }
    if (update.metadata !== undefined) out.metadata = update.metadata
    return out
  }
  const update = event.artifactUpdate
  const out: Json = { kind: 'artifact-update', taskId: update.taskId, contextId: update.contextId, artifact: artifactToV03(update.artifact) }
  copyDefined(update, out, ['append', 'lastChunk', 'metadata'])
  return out
}

/** A flat 1.0 push config as 0.3's `{taskId, pushNotificationConfig}`, one scheme as a list of one. */
export function pushConfigToV03(config: TaskPushNotificationConfig): Json {
  const inner: Json = { url: config.url }
  copyDefined(config, inner, ['id', 'token'])
  if (config.authentication) {
    inner.authentication = {
      schemes: [config.authentication.scheme],
      ...(config.authentication.credentials !== undefined ? { credentials: config.authentication.credentials } : {}),
    }
  }
  return { taskId: config.taskId ?? '', pushNotificationConfig: inner }
}

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

function copyDefined<T extends object>(from: T, to: Json, keys: readonly (keyof T & string)[]): void {
  for (const key of keys) if (from[key] !== undefined) to[key] = from[key]
}
