/**
 * What a skill handler works with: the message that started (or resumed) the run, the task's
 * history, the caller, a signal cut on cancel, timeout or shutdown, and the task's transitions.
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { Principal } from '../auth/principal.js'
import { assertJsonEncodable } from '../wire/json-safe.js'
import type { DataPart, Message } from '../wire/types.js'
import { agentMessage, toParts, withArtifact, withStatus, type ArtifactChunk, type Content } from './task-changes.js'
import type { TaskRun } from './task-run.js'

export type { ArtifactChunk, Content }

export interface TaskContext {
  readonly taskId: string
  readonly contextId: string
  /** Id of the skill this run serves. */
  readonly skillId: string
  /** The message that started or resumed this run. */
  readonly message: Message
  /** Every message of the task so far, oldest first, ending with {@link message}. */
  readonly history: readonly Message[]
  readonly principal: Principal
  /** Aborted when the task is canceled, times out, or the server shuts down. */
  readonly signal: AbortSignal
  /** The message's text parts joined by newlines. */
  readonly text: string
  /** The value of the message's first data part, if any. */
  readonly data: unknown
  /** Marks the task WORKING. Once working, a call without a message changes nothing. */
  working(message?: Content): Promise<void>
  /** Sends an artifact (or one chunk of it) and returns its id, to append further chunks with. */
  artifact(chunk: ArtifactChunk): Promise<string>
  complete(message?: Content): Promise<void>
  fail(reason: Content): Promise<void>
  reject(reason: Content): Promise<void>
  /** Pauses the task until the caller answers with a message naming its taskId. */
  requireInput(question: Content): Promise<void>
  /** Pauses the task until the caller authorizes and answers with a message naming its taskId. */
  requireAuth(reason: Content): Promise<void>
  /** Builds a direct agent message; return it from the handler to answer without task output. */
  reply(content: Content): Message
}

export function createTaskContext(run: TaskRun): TaskContext {
  const { record, message, principal } = run
  const task = record.task
  const status = (state: Parameters<typeof withStatus>[1]) => async (content?: Content) => {
    await run.change((t) => withStatus(t, state, content === undefined ? undefined : agentMessage(t, content)))
  }
  return {
    taskId: task.id,
    contextId: task.contextId,
    skillId: run.skill.id,
    message,
    history: task.history ?? [],
    principal,
    get signal() {
      return run.signal
    },
    // Read on demand: many handlers use neither.
    get text() {
      return message.parts.flatMap((p) => ('text' in p ? [p.text] : [])).join('\n')
    },
    get data() {
      return message.parts.find((p): p is DataPart => 'data' in p)?.data
    },
    async working(content) {
      run.assertOpen()
      if (content === undefined && run.record.task.status.state === 'TASK_STATE_WORKING') return
      await status('TASK_STATE_WORKING')(content)
    },
    async artifact(chunk) {
      run.assertOpen()
      assertJsonEncodable(chunk.parts, 'artifact.parts')
      assertJsonEncodable(chunk.metadata, 'artifact.metadata')
      const artifactId = chunk.artifactId ?? randomUUID()
      const given = toParts(chunk.parts)
      // Awaited only when a part is stored as a file: each await is a turn of the microtask queue.
      const parts = run.offloads(given) ? await run.offload(given) : given
      await run.change((t) => withArtifact(t, { ...chunk, parts }, artifactId))
      return artifactId
    },
    complete: status('TASK_STATE_COMPLETED'),
    fail: status('TASK_STATE_FAILED'),
    reject: status('TASK_STATE_REJECTED'),
    requireInput: status('TASK_STATE_INPUT_REQUIRED'),
    requireAuth: status('TASK_STATE_AUTH_REQUIRED'),
    reply: (content) => ({ messageId: randomUUID(), role: 'ROLE_AGENT', parts: toParts(content), contextId: task.contextId }),
  }
}
