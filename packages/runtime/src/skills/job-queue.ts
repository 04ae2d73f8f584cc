/**
 * The queue contract the job worker runs on: at-least-once delivery, retries with backoff and a
 * dead-letter state. MemoryJobQueue (tests, one process), PgBossJobQueue
 * (`@a2a-agent/runtime/pg-boss-jobs`), MysqlJobQueue (`@a2a-agent/runtime/mysql-jobs`) and
 * SqliteJobQueue implement it.
 * @module
 */
import type { Principal } from '../core/principal.js'
import type { PgBossJobRow } from '../store/job-row.js'

/** One queued job: which task it serves, which job and its input, and whose call made it. */
export interface QueuedJob {
  /** Idempotency key: `<taskId>/<messageId>/<job>`. A second enqueue of the same key stores nothing. */
  key: string
  taskId: string
  /** The hosted agent whose task it is (AgentHost); absent for a lone exchange. Each agent's worker takes its own. */
  agent?: string
  job: string
  input: unknown
  /** The message of the turn that enqueued it: the job's context shows it as `message`. */
  messageId: string
  principal: Principal
  /** scheme://host[:port] the caller reached the agent at (artifact file URLs are built on it). */
  baseUrl: string
}

/** How a queue retries a job, taken from its definition when it is enqueued. */
export interface JobSettings {
  retries: number
  backoff: { delayMs: number; exponential: boolean }
  timeoutMs: number
}

/** What a worker gives the queue to run. */
export interface JobHandlers {
  /**
   * Runs one attempt (from 1); a throw retries it after its backoff, or dead-letters it past its
   * retries. A throw of {@link HandedBack} (the worker stopped) counts no attempt: the job is
   * queued again, due at once (PgBossJobQueue: after its backoff), with the same attempt number.
   */
  run(job: QueuedJob, attempt: number): Promise<void>
  /** The job is dead-lettered after `attempts` attempts, the last failing with `reason`. */
  dead(job: QueuedJob, reason: string, attempts: number): Promise<void>
  /** Attempts run at once by this worker. */
  concurrency: number
  /** Takes only the jobs of this hosted agent (QueuedJob.agent); absent: the jobs of no agent. */
  agent?: string
}

export interface JobQueue {
  /** Stores the job unless one of its key is stored already (then resolves all the same). */
  enqueue(job: QueuedJob, settings: JobSettings): Promise<void>
  /** Starts running jobs; the handle stops it (attempts in flight are let finish, or handed back). */
  work(handlers: JobHandlers): Promise<{ stop(): Promise<void> }>
  /**
   * The job as a row the task store may insert with the task's WORKING write, atomically
   * (PgBossJobQueue; used when the store has the capability jobRows and says it can). Absent: `enqueue` only.
   */
  rowOf?(job: QueuedJob, settings: JobSettings): Promise<PgBossJobRow>
  /** Tells this process's workers a job was queued by a task write, not by `enqueue`. */
  wake?(): void
}

/**
 * What JobHandlers.run throws when its worker stops before or during an attempt: the job goes back
 * to the queue uncounted, never dead-lettered, and its task stays WORKING for the next worker.
 */
export class HandedBack extends Error {
  constructor(message = 'the job worker stopped: the job is handed back to the queue') {
    super(message)
    this.name = 'HandedBack'
  }
}

/** The reason a dead-lettered job is stored with: the error's message, bounded. */
export function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error)
  return (text || 'the job threw with no message').slice(0, 500)
}
