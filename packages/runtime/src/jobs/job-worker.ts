/**
 * Runs queued jobs on their tasks (`exchange.jobWorker()`). Each attempt reads the task: settled
 * (canceled, or failed by the sweep) means the job is skipped; still under the lease of the run
 * that enqueued it means that run's hand-off is under way (or it crashed), so the attempt waits
 * for the lease to pass to the job, or to lapse, then takes the task over. An attempt's writes are
 * a handler's; a throw is retried by the queue, and a dead-lettered job fails its task with the reason.
 *
 * The run cap: jobs take no run slot of their owner (maxConcurrentRunsPerOwner counts handler runs
 * only); a worker runs at most `concurrency` attempts at once, for all owners together.
 * @module
 */
import { scrub } from '../log/logger.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { retain } from '../run/retain.js'
import { RunSlots } from '../run/run-slots.js'
import { agentMessage, withStatus, type Transition } from '../run/task-changes.js'
import type { TaskRecord } from '../store/store.js'
import { writeTask } from '../store/write.js'
import { capabilityOf } from '../store/capabilities.js'
import { isTerminal, type Message } from '../wire/types.js'
import { JOB_RUNNER, jobLease, type JobSetup } from '../run/enqueue-job.js'
import type { Job } from '../skills/job.js'
import { HandedBack, type QueuedJob } from '../skills/job-queue.js'
import { JobRun } from './job-run.js'

export interface JobWorkerOptions {
  /** Attempts this worker runs at once; default 4. */
  concurrency?: number
  /** How often an attempt reads a task still under its enqueuing run's lease again; default 100 ms. */
  handOverPollMs?: number
}

export interface JobWorker {
  start(): Promise<void>
  /** Stops taking jobs; attempts in flight are handed back to the queue, their tasks left WORKING. */
  stop(): Promise<void>
}

export function createJobWorker(core: ExchangeCore, setup: JobSetup, options: JobWorkerOptions = {}): JobWorker {
  const concurrency = options.concurrency ?? 4
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`jobWorker concurrency must be a whole number of at least 1, got ${JSON.stringify(concurrency)}`)
  const pollMs = options.handOverPollMs ?? 100
  // Per job: its attempt deadline as the task timeout, and no run slot nor occupancy of the owner.
  // Everything else (store, events, push, the live runs a cancel reaches) is the exchange's own.
  const cores = new Map<Job, ExchangeCore>()
  const coreOf = (job: Job): ExchangeCore => {
    let derived = cores.get(job)
    if (!derived) {
      derived = Object.create(core, {
        slots: { value: new RunSlots(-1) },
        quota: { value: undefined },
        limits: { value: { ...core.limits, taskTimeoutMs: job.timeoutMs } },
      }) as ExchangeCore
      cores.set(job, derived)
    }
    return derived
  }
  const live = new Set<JobRun>()
  let handle: { stop(): Promise<void> } | undefined
  let stopping = false

  /** The task once the job holds it, or undefined when the job is to be skipped. */
  async function claim(queued: QueuedJob, job: Job, attempt: number): Promise<TaskRecord | undefined> {
    for (;;) {
      const record = await core.store.get(queued.taskId)
      if (!record || isTerminal(record.task.status.state) || stopping || core.closing) return undefined
      if (record.lease?.runner === JOB_RUNNER) {
        // The lease follows the job: renewed for what is left of it, without a version.
        const lease = jobLease(job, attempt)
        await capabilityOf(core.store, 'leases')?.renewLeases(JOB_RUNNER, [record.id], lease.until)
        return { ...record, lease }
      }
      if (core.runs.has(record.id) || (record.lease && record.lease.until >= Date.now())) {
        await new Promise((resolve) => setTimeout(resolve, pollMs))
        continue
      }
      // The enqueuing run stopped before it handed the task over: the job takes it, unless the sweep settled it first.
      let event: Transition['event'] | undefined
      const outcome = await writeTask(core.store, record, (current) => {
        if (isTerminal(current.task.status.state) || current.lease?.runner === JOB_RUNNER || (current.lease?.until ?? -Infinity) >= Date.now()) return null
        const next = withStatus(current.task, 'TASK_STATE_WORKING')
        event = next.event
        return { task: next.task, event: next.event, lease: jobLease(job, attempt) }
      })
      if ('written' in outcome && event) {
        core.events.publish({ taskId: record.id, version: outcome.written.version, response: event })
        return outcome.written
      }
    }
  }

  async function run(queued: QueuedJob, attempt: number): Promise<void> {
    const job = setup.jobs.get(queued.job)
    // Thrown: retried, then dead-lettered with this reason (a deploy without the job must not lose it).
    if (!job) throw new Error(`no job named "${queued.job}" is registered on this worker: add it to jobs.jobs in createExchange`)
    const record = await claim(queued, job, attempt)
    // Stopped while claiming: the task stays WORKING under the job's lease, for the next worker.
    if (stopping || core.closing) throw new HandedBack('the job worker stopped before this attempt')
    if (!record) return
    const history = record.task.history ?? []
    const message: Message = history.find((m) => m.messageId === queued.messageId) ?? history.at(-1) ?? { messageId: queued.messageId, role: 'ROLE_USER', parts: [] }
    const jobRun = new JobRun(coreOf(job), record, job, queued.input, attempt, queued.principal, message, queued.baseUrl)
    live.add(jobRun)
    try {
      const outcome = await jobRun.attempt()
      if (!outcome.done) throw outcome.error
    } finally {
      live.delete(jobRun)
    }
  }

  /** Past its retries: the task fails with the reason, unless settled already. */
  async function dead(queued: QueuedJob, reason: string, attempts: number): Promise<void> {
    const record = await core.store.get(queued.taskId)
    if (!record || isTerminal(record.task.status.state)) return
    let event: Transition['event'] | undefined
    const text = `job "${queued.job}" failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`
    const outcome = await writeTask(core.store, record, (current) => {
      if (isTerminal(current.task.status.state)) return null
      const next = withStatus(current.task, 'TASK_STATE_FAILED', agentMessage(current.task, text))
      event = next.event
      return { task: next.task, event: next.event }
    })
    if (!('written' in outcome) || !event) return
    core.logger.warn(`a2a: task ${record.id} failed: ${scrub(text)}`)
    core.events.publish({ taskId: record.id, version: outcome.written.version, response: event })
    await retain(core, outcome.written)
  }

  return {
    async start() {
      if (handle) return
      stopping = false
      handle = await setup.queue.work({
        run,
        dead,
        concurrency,
        ...(core.agentId === undefined ? {} : { agent: core.agentId }),
      })
    },
    async stop() {
      stopping = true
      // The queue stops handing out jobs first, so a job handed back is not given to this worker again.
      await Promise.all([handle?.stop(), ...[...live].map((jobRun) => jobRun.cut())])
      handle = undefined
    },
  }
}
