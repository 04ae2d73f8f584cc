/**
 * The {@link TaskContext} a skill handler gets: a run's message, history and caller, and its
 * transitions, each written through the run.
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { Principal } from '../core/principal.js'
import type { ArtifactChunk, Content, TaskContext } from '../skills/task-context.js'
import { assertJsonEncodable } from '../wire/json-safe.js'
import type { DataPart, Message } from '../wire/types.js'
import { agentMessage, toParts, withArtifact, withStatus } from './task-changes.js'
import type { TaskRun } from './task-run.js'

export function createTaskContext(run: TaskRun): TaskContext {
  return new RunContext(run)
}

/**
 * A run's context. Its methods may be taken off it (`const { complete, text } = ctx`): each is
 * bound to the run the first time it is read, so a handler pays for the few it uses, not a
 * closure per method per run. It is not a plain object: a spread of it copies its fields (the
 * ids, message, history, principal), not its methods nor `signal`, `text` and `data`.
 */
class RunContext implements TaskContext {
  readonly taskId: string
  readonly contextId: string
  readonly skillId: string
  readonly message: Message
  readonly history: readonly Message[]
  readonly principal: Principal
  readonly #run: TaskRun
  // Each method as bound to this context, made the first time it is read.
  #working: TaskContext['working'] | undefined
  #artifact: TaskContext['artifact'] | undefined
  #complete: TaskContext['complete'] | undefined
  #fail: TaskContext['fail'] | undefined
  #reject: TaskContext['reject'] | undefined
  #requireInput: TaskContext['requireInput'] | undefined
  #requireAuth: TaskContext['requireAuth'] | undefined
  #reply: TaskContext['reply'] | undefined
  #enqueue: TaskContext['enqueue'] | undefined

  constructor(run: TaskRun) {
    const task = run.record.task
    this.taskId = task.id
    this.contextId = task.contextId
    this.skillId = run.skill.id
    this.message = run.message
    this.history = task.history ?? []
    this.principal = run.principal
    this.#run = run
  }

  get signal(): AbortSignal {
    return this.#run.signal
  }

  // Read on demand: many handlers use neither.
  get text(): string {
    return this.message.parts.flatMap((p) => ('text' in p ? [p.text] : [])).join('\n')
  }

  get data(): unknown {
    return this.message.parts.find((p): p is DataPart => 'data' in p)?.data
  }

  get working(): TaskContext['working'] {
    return (this.#working ??= async (content?: Content) => {
      this.#run.assertOpen()
      if (content === undefined && this.#run.record.task.status.state === 'TASK_STATE_WORKING') return
      await this.#status('TASK_STATE_WORKING', content)
    })
  }

  get artifact(): TaskContext['artifact'] {
    return (this.#artifact ??= async (chunk: ArtifactChunk) => {
      const run = this.#run
      run.assertOpen()
      assertJsonEncodable(chunk.parts, 'artifact.parts')
      assertJsonEncodable(chunk.metadata, 'artifact.metadata')
      const artifactId = chunk.artifactId ?? randomUUID()
      const given = toParts(chunk.parts)
      // Awaited only when a part is stored as a file: each await is a turn of the microtask queue.
      const parts = run.offloads(given) ? await run.offload(given) : given
      const page = run.artifactPage(artifactId)
      const shown = page === undefined ? chunk : { ...chunk, metadata: { ...chunk.metadata, webUrl: page } }
      await run.change((t) => withArtifact(t, { ...shown, parts }, artifactId))
      return artifactId
    })
  }

  get complete(): TaskContext['complete'] {
    return (this.#complete ??= (content?: Content) => this.#status('TASK_STATE_COMPLETED', content))
  }

  get fail(): TaskContext['fail'] {
    return (this.#fail ??= (reason: Content) => this.#status('TASK_STATE_FAILED', reason))
  }

  get reject(): TaskContext['reject'] {
    return (this.#reject ??= (reason: Content) => this.#status('TASK_STATE_REJECTED', reason))
  }

  get requireInput(): TaskContext['requireInput'] {
    return (this.#requireInput ??= (question: Content) => this.#status('TASK_STATE_INPUT_REQUIRED', question))
  }

  get requireAuth(): TaskContext['requireAuth'] {
    return (this.#requireAuth ??= (reason: Content) => this.#status('TASK_STATE_AUTH_REQUIRED', reason))
  }

  get reply(): TaskContext['reply'] {
    return (this.#reply ??= (content: Content): Message => ({ messageId: randomUUID(), role: 'ROLE_AGENT', parts: toParts(content), contextId: this.contextId }))
  }

  get enqueue(): TaskContext['enqueue'] {
    return (this.#enqueue ??= (job, input, message) => this.#run.enqueue(job, input, message))
  }

  async #status(state: Parameters<typeof withStatus>[1], content: Content | undefined): Promise<void> {
    await this.#run.change((t) => withStatus(t, state, content === undefined ? undefined : agentMessage(t, content)))
  }
}
