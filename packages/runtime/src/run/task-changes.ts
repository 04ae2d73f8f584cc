/**
 * Pure task transitions: each takes the stored task and returns the next one with the event the
 * write publishes. Agent status messages are also appended to the history, the conversation's record.
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { ArtifactChunk, Content } from '../skills/task-context.js'
import type { TaskChanges } from '../store/store.js'
import { extended } from '../wire/copy.js'
import type { Artifact, Message, Part, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus } from '../wire/types.js'

export interface Transition {
  task: Task
  event: StreamResponse
}

/** A transition as the write that stores it. */
export const changesOf = (next: Transition, repliedWithMessage: boolean): TaskChanges =>
  repliedWithMessage ? { task: next.task, event: next.event, repliedWithMessage } : { task: next.task, event: next.event }

export const toParts = (content: Content): Part[] => (typeof content === 'string' ? [{ text: content }] : content)

export function agentMessage(task: Pick<Task, 'id' | 'contextId'>, content: Content): Message {
  return { messageId: randomUUID(), role: 'ROLE_AGENT', parts: toParts(content), contextId: task.contextId, taskId: task.id }
}

let nowMs = Number.NaN
let nowIso = ''

/** The current time as an RFC 3339 timestamp; formatted once per millisecond (a send stamps three). */
export function now(): string {
  const ms = Date.now()
  if (ms !== nowMs) {
    nowMs = ms
    nowIso = new Date(ms).toISOString()
  }
  return nowIso
}

/** The next task in `state`; the given task is left as it was. */
export function withStatus(task: Task, state: TaskState, message?: Message): Transition {
  // Built member by member in the wire's order: a spread of `{}` for an absent member costs an object.
  const status: TaskStatus = message ? { state, message, timestamp: now() } : { state, timestamp: now() }
  const next: Task = { ...task, status }
  if (message) next.history = [...(task.history ?? []), message]
  return { task: next, event: { statusUpdate: { taskId: task.id, contextId: task.contextId, status } } }
}

/** The next task with this artifact chunk applied; the given task is left as it was. */
export function withArtifact(task: Task, chunk: ArtifactChunk, artifactId: string): Transition {
  const parts = toParts(chunk.parts)
  const artifacts = [...(task.artifacts ?? [])]
  const index = artifacts.findIndex((a) => a.artifactId === artifactId)
  // Member by member in the wire's order (artifactId, name, description, parts, metadata), with no object per absent one.
  const sent = { artifactId } as Artifact
  if (chunk.name !== undefined) sent.name = chunk.name
  if (chunk.description !== undefined) sent.description = chunk.description
  sent.parts = parts
  if (chunk.metadata) sent.metadata = chunk.metadata
  if (index >= 0 && chunk.append) {
    const stored = artifacts[index]!
    artifacts[index] = { ...stored, ...sent, parts: [...stored.parts, ...parts] }
  } else if (index >= 0) {
    artifacts[index] = sent
  } else {
    artifacts.push(sent)
  }
  return {
    task: extended(task, { artifacts }),
    event: { artifactUpdate: artifactUpdate(task, sent, chunk) },
  }
}

function artifactUpdate(task: Task, artifact: Artifact, chunk: ArtifactChunk): TaskArtifactUpdateEvent {
  const update: TaskArtifactUpdateEvent = { taskId: task.id, contextId: task.contextId, artifact }
  if (chunk.append) update.append = true
  if (chunk.lastChunk) update.lastChunk = true
  return update
}
