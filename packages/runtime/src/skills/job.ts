/**
 * A job: work a skill hands off so that it no longer holds a run slot, survives its process and is
 * retried. `ctx.enqueue(job, input)` stores it and marks the task WORKING; a worker
 * (`exchange.jobWorker()`) runs it later with a context like a handler's, which completes the task.
 * @module
 */
import type { output, ZodType } from 'zod'
import type { SkillResult } from './skill.js'
import type { TaskContext } from './task-context.js'
import type { Artifact } from '../wire/types.js'

/** What a job's `run` works with: a handler's context, plus which attempt this is and what earlier ones stored. */
export interface JobContext extends TaskContext {
  /** 1 on the first attempt, growing with each retry (after a throw, or a worker that died mid-run). */
  readonly attempt: number
  /**
   * The task's artifacts as stored when this attempt started: an attempt after a crash finds an
   * earlier attempt's output here and need not make it again (each artifact event is sent once).
   */
  readonly artifacts: readonly Artifact[]
}

export interface Backoff {
  /** The pause before the first retry, in ms; default 5000. PostgreSQL queues round it up to whole seconds. */
  delayMs?: number
  /** Doubles the pause for each further retry (pg-boss adds jitter); default true. */
  exponential?: boolean
}

export interface JobDefinition<Schema extends ZodType> {
  /** Unique among the app's jobs; stored with each queued job, so keep it stable across deploys. */
  name: string
  /** A zod schema of the input; `enqueue` checks the input against it and `run` gets it parsed. */
  input: Schema
  /**
   * The work. Returning ends the task COMPLETED unless the job settled or paused it itself;
   * throwing retries the job after its backoff, and past its retries fails the task with the error's message.
   */
  run(context: JobContext, input: output<Schema>): SkillResult | Promise<SkillResult>
  /** Retries after the first attempt; default 3. */
  retries?: number
  backoff?: Backoff
  /**
   * The longest one attempt may run, in ms; default 15 minutes. Past it the attempt is cut (its
   * signal aborted, its writes refused) and counts as one that threw; a queue takes a job back from
   * a worker silent for longer.
   */
  timeoutMs?: number
  /** How long a queued job may wait for a worker before the task's lease lapses (the sweep then fails it); default 24 hours. */
  waitMs?: number
}

export interface Job<Schema extends ZodType = ZodType> {
  readonly name: string
  readonly input: Schema
  readonly run: JobDefinition<Schema>['run']
  readonly retries: number
  readonly backoff: Required<Backoff>
  readonly timeoutMs: number
  readonly waitMs: number
}

const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** Checks a job definition and fills in its defaults. */
export function defineJob<Schema extends ZodType>(definition: JobDefinition<Schema>): Job<Schema> {
  const { name } = definition
  if (typeof name !== 'string' || !JOB_NAME.test(name)) {
    throw new Error(`Job name ${JSON.stringify(name)} must start with a letter or digit and use only letters, digits, ".", "_" and "-"`)
  }
  if (typeof definition.run !== 'function') throw new Error(`Job "${name}" has no run function`)
  if (typeof definition.input?.safeParse !== 'function') throw new Error(`Job "${name}" needs input: a zod schema of what enqueue passes it (e.g. z.object({ month: z.string() }))`)
  const count = (value: number | undefined, fallback: number, what: string, min: number): number => {
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || value < min) throw new Error(`Job "${name}" ${what} must be an integer of at least ${min}, got ${JSON.stringify(value)}`)
    return value
  }
  return {
    name,
    input: definition.input,
    run: definition.run,
    retries: count(definition.retries, 3, 'retries', 0),
    backoff: { delayMs: count(definition.backoff?.delayMs, 5000, 'backoff.delayMs', 0), exponential: definition.backoff?.exponential ?? true },
    timeoutMs: count(definition.timeoutMs, 15 * 60_000, 'timeoutMs', 1),
    waitMs: count(definition.waitMs, 24 * 3_600_000, 'waitMs', 0),
  }
}

/** The pause before retry `retry` (1 = the first), without jitter. */
export const backoffMs = (job: Pick<Job, 'backoff'>, retry: number): number => (job.backoff.exponential ? job.backoff.delayMs * 2 ** (retry - 1) : job.backoff.delayMs)

/**
 * How long a job may still take from now, from attempt `fromAttempt` (1 = the first) to its last:
 * what the task's lease holds while the job waits or runs (jobLease in run/enqueue-job.ts), so the
 * lease sweep leaves it to the queue.
 */
export function jobHorizonMs(job: Job, fromAttempt: number): number {
  let total = job.waitMs
  for (let attempt = fromAttempt; attempt <= job.retries + 1; attempt++) total += job.timeoutMs + (attempt > 1 ? 2 * backoffMs(job, attempt - 1) : 0)
  return total
}
