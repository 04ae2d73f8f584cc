/**
 * One attempt of a job on its task: a TaskRun whose "handler" is the job's run, so its writes go
 * through the same versioned, serialized path as a handler's (the same events, push
 * notifications and isolation). It differs where a job must: a throw hands the task back to the
 * queue for a retry instead of failing it, and a worker's shutdown hands it back too.
 * @module
 */
import type { Principal } from '../core/principal.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { RunEndedError, TaskCanceledError, TaskTimeoutError } from '../run/run-errors.js'
import { TaskRun } from '../run/task-run.js'
import type { Skill } from '../skills/skill.js'
import type { TaskRecord } from '../store/store.js'
import type { Message } from '../wire/types.js'
import type { Job, JobContext } from '../skills/job.js'
import { HandedBack } from '../skills/job-queue.js'

/** How an attempt ended: done (the task settled, paused, or was settled by someone else) or threw, to be retried. */
export type Attempt = { done: true } | { done: false; error: unknown }

export class JobRun extends TaskRun {
  #thrown: { error: unknown } | undefined
  /** The job this attempt runs: it may enqueue another job on its task, not itself (run/enqueue-job.ts). */
  readonly jobName: string
  readonly #timeoutMs: number

  constructor(core: ExchangeCore, record: TaskRecord, job: Job, input: unknown, attempt: number, principal: Principal, message: Message, baseUrl: string) {
    const skill: Skill = {
      id: record.skill,
      description: `job ${job.name}`,
      handler: async (context) => {
        // Read as stored when the attempt starts: an earlier attempt's output, for the job to skip.
        Object.defineProperties(context, { attempt: { value: attempt }, artifacts: { value: record.task.artifacts ?? [] } })
        try {
          return await job.run(context as JobContext, job.input.parse(input))
        } catch (error) {
          // Cut by a cancel, a timeout or its own settle: nothing to retry.
          if (error instanceof TaskCanceledError || error instanceof RunEndedError || error instanceof TaskTimeoutError) return
          this.#thrown = { error }
          await this.release()
        }
      },
    }
    super(core, record, skill, principal, message, baseUrl)
    this.jobName = job.name
    this.#timeoutMs = job.timeoutMs
  }

  /** Runs the attempt to its end: the run's settle, which a timeout brings even if the job never returns. */
  async attempt(): Promise<Attempt> {
    void this.start()
    await this.done
    return this.#thrown ? { done: false, error: this.#thrown.error } : { done: true }
  }

  /**
   * Past the job's timeoutMs (its deadline, run-deadlines.ts): the attempt is cut, its signal
   * aborted and its writes refused, and counts as one that threw, for the queue to retry. A
   * handler's run would fail the task instead.
   */
  override timedOut(): void {
    if (this.finished) return
    this.#thrown ??= { error: new Error(`the attempt ran past the job's timeoutMs (${this.#timeoutMs} ms)`) }
    void this.release()
  }

  /** The worker (or its exchange) shuts down: the task stays WORKING under the job's lease and the queue takes the job back (HandedBack), uncounted, for another worker. */
  override async cut(): Promise<void> {
    if (this.finished) return
    this.#thrown ??= { error: new HandedBack('the job worker stopped during this attempt') }
    await this.release()
  }
}
