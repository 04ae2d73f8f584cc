/**
 * `ctx.enqueue(job, input)`: the job is stored, keyed by task, message and job (a retried
 * enqueue stores nothing new), the task goes WORKING under the job's lease, and the run ends.
 * Where the store can (PostgresStore with PgBossJobQueue on its database: store capability jobRows),
 * the job's row is inserted by the WORKING write itself: both land, or neither. Elsewhere
 * (MemoryStore, SqliteStore, PrismaStore, a queue on another database) the job is queued first,
 * then the task written; that order keeps a crash between them safe: a queued job whose task
 * still has its run's lease is taken over by the worker once that lease lapses, unless the sweep
 * settled the task first (then the job is skipped). No task is left WORKING without a job.
 * @module
 */
import type { RunLease } from '../store/store.js'
import type { TaskRun } from './task-run.js'
import type { Content } from '../skills/task-context.js'
import { assertJsonEncodable } from '../wire/json-safe.js'
import { jobHorizonMs, type Job } from '../skills/job.js'
import type { JobQueue, QueuedJob } from '../skills/job-queue.js'
import type { PgBossJobRow } from '../store/job-row.js'

/** What an exchange enqueues on and its workers run. */
export interface JobSetup {
  queue: JobQueue
  jobs: ReadonlyMap<string, Job>
}

/** How TaskRun.handOff stores a job: by `enqueue`, or as a `row` its task write inserts (then `stored` once it did). */
export interface JobHandOff {
  enqueue(): Promise<void>
  row?(): Promise<PgBossJobRow>
  stored?(): void
}

/** The lease runner of a task a job holds: the lease sweep leaves it alone until its expiry. */
export const JOB_RUNNER = 'a2a-jobs'

/** The lease a job's task holds while attempts from `fromAttempt` on may still come. */
export const jobLease = (job: Job, fromAttempt: number): RunLease => ({ runner: JOB_RUNNER, until: Date.now() + jobHorizonMs(job, fromAttempt) })

export async function enqueueJob(run: TaskRun, setup: JobSetup | undefined, agent: string | undefined, job: Job, input: unknown, content?: Content): Promise<void> {
  const name = job?.name
  if (!setup) throw new Error(`ctx.enqueue("${name}") needs a job queue: pass jobs: { queue, jobs: [...] } to createExchange`)
  if (setup.jobs.get(name) !== job) throw new Error(`Job "${name}" is not among the exchange's jobs: add it to jobs.jobs in createExchange, so workers can run it`)
  // Its key would be the running job's own, so the queue would store nothing: the task would wait in vain.
  if ((run as { jobName?: string }).jobName === name) throw new Error(`Job "${name}" cannot enqueue itself on its own task: throw to have it retried, or enqueue another job`)
  const parsed = job.input.safeParse(input)
  if (!parsed.success) throw new Error(`ctx.enqueue("${name}"): the input does not match the job's schema: ${issuesOf(parsed.error)}`)
  // Queued as given (JSON), parsed again by the worker: a schema's output may hold what JSON cannot.
  assertJsonEncodable(input, 'enqueue input')
  const { record, message } = run
  const queued: QueuedJob = {
    key: `${record.id}/${message.messageId}/${name}`,
    taskId: record.id,
    ...(agent === undefined ? {} : { agent }),
    job: name,
    input,
    messageId: message.messageId,
    principal: run.principal,
    baseUrl: run.baseUrl,
  }
  const settings = { retries: job.retries, backoff: job.backoff, timeoutMs: job.timeoutMs }
  const { queue } = setup
  const handOff: JobHandOff = {
    enqueue: () => queue.enqueue(queued, settings),
    ...(queue.rowOf ? { row: () => queue.rowOf!(queued, settings), stored: () => queue.wake?.() } : {}),
  }
  await run.handOff(handOff, jobLease(job, 1), content)
}

/** ExchangeOptions.jobs, checked: one job per name. */
export function jobSetup(options: { queue: JobQueue; jobs: readonly Job[] }): JobSetup {
  if (typeof options.queue?.enqueue !== 'function') throw new Error('jobs.queue must be a job queue (MemoryJobQueue, PgBossJobQueue or SqliteJobQueue)')
  const jobs = new Map<string, Job>()
  for (const job of options.jobs ?? []) {
    if (jobs.has(job.name)) throw new Error(`Two jobs share the name "${job.name}"; job names must be unique`)
    jobs.set(job.name, job)
  }
  return { queue: options.queue, jobs }
}

/** A zod error's issues, one per field (zod itself is not loaded for this: apps without entity tools never load it). */
const issuesOf = (error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string =>
  error.issues.map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : 'input'}: ${issue.message}`).join('; ')
