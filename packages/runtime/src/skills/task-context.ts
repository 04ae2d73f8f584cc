/**
 * What a skill handler works with: the message that started (or resumed) the run, the task's
 * history, the caller, a signal cut on cancel, timeout or shutdown, and the task's transitions.
 * The contract only: run/run-context.ts implements it over a run.
 * @module
 */
import type { Principal } from '../core/principal.js'
import type { Message, Part } from '../wire/types.js'
import type { Job } from './job.js'
import type { input, ZodType } from 'zod'

/** A message's content: its text, or its parts. */
export type Content = string | Part[]

export interface ArtifactChunk {
  /** Reuse an id to replace that artifact, or to extend it with `append: true`. */
  artifactId?: string
  name?: string
  description?: string
  parts: Content
  metadata?: Record<string, unknown>
  /** Add these parts to the artifact already sent under `artifactId`. */
  append?: boolean
  /** This is the artifact's final chunk. */
  lastChunk?: boolean
}

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
  /**
   * Hands the rest of the work to a job (skills/job.ts): the job is queued, the task goes WORKING
   * (with `message`, if given) and this run ends, its slot freed; a job worker runs the job later.
   * The handler should return after it: further writes of this run are refused.
   */
  enqueue<Schema extends ZodType>(job: Job<Schema>, input: input<Schema>, message?: Content): Promise<void>
}
