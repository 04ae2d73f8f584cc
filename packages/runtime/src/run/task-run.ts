/**
 * One run of a skill handler on one task: its writes (run-writes), its deadline, and how it ends.
 * A run outlives the request that started it; whoever settles the task first (the handler, a
 * cancel, the deadline, shutdown) wins in the store, and later writes of the run are refused.
 * @module
 */
import type { Principal } from '../core/principal.js'
import type { ExchangeCore } from './exchange-core.js'
import { scrub } from '../log/logger.js'
import { context, settleSpan, startRunSpan } from '../trace/tracing.js'
import type { Skill, SkillResult } from '../skills/skill.js'
import type { RunLease, TaskRecord } from '../store/store.js'
import { isTerminal, type Message, type Part, type Task, type TaskState } from '../wire/types.js'
import { hasLargeParts, offloadLargeParts } from '../artifacts/offload.js'
import { armDeadline, armTimeout } from './run-deadlines.js'
import { DeadlineExceededError, RunEndedError, TaskCanceledError, TaskTimeoutError } from './run-errors.js'
import { RunWrites, type InsertTask } from './run-writes.js'
import { agentMessage, changesOf, withStatus, type Transition } from './task-changes.js'
import type { Content } from '../skills/task-context.js'
import { createTaskContext } from './run-context.js'
import type { Job } from '../skills/job.js'
import { enqueueJob, type JobHandOff } from './enqueue-job.js'
import { capabilityOf } from '../store/capabilities.js'

export class TaskRun extends RunWrites {
  /** Made for a new task, which it inserts: it starts without reading it again. */
  readonly #new: boolean

  constructor(
    core: ExchangeCore,
    record: TaskRecord,
    readonly skill: Skill,
    readonly principal: Principal,
    readonly message: Message,
    /** scheme://host[:port] the caller reached the agent at: artifact file URLs are built on it. */
    readonly baseUrl = 'http://localhost',
    /**
     * A new task, not stored yet: inserted by {@link insert} before the run starts, or else with
     * its first turn's writes. Made before the insert, so a cancel or a shutdown once the task is
     * stored finds the run. `insert` stores it (default: the store's create).
     */
    options: { new?: boolean; insert?: InsertTask } = {},
  ) {
    super(core, record, options.new === true, options.insert)
    this.#new = options.new === true
    core.runs.set(record.id, this)
  }

  /**
   * The run outlived the turn it started in ({@link armDeadline} calls this then): its pending
   * writes are stored now, and the deadline timer is armed unless the run has ended.
   */
  arm(ms: number): void {
    this.storeFirstTurn()
    if (this.stop) return
    armTimeout(this, this.core.limits.taskTimeoutMs, ms)
  }

  /** The deadline passed (run-deadlines.ts): the run fails as timed out unless it stopped already. */
  timedOut(): void {
    void this.#timeout()
  }

  /** Where a person opens the artifact (the inbox's page for it); undefined when the app serves no inbox. */
  artifactPage(artifactId: string): string | undefined {
    const path = this.core.artifactPages
    return path === undefined ? undefined : `${this.baseUrl}${path}/tasks/${encodeURIComponent(this.id)}/artifacts/${encodeURIComponent(artifactId)}`
  }

  /** Whether {@link offload} has any part to store as a file (most artifacts have none). */
  offloads(parts: Part[]): boolean {
    const { artifacts } = this.core
    return artifacts !== undefined && hasLargeParts(artifacts, parts)
  }

  /**
   * The parts with oversized text and bytes stored as files and sent as url parts. A held task is
   * inserted first: the file sweep deletes the files of every task the store does not hold.
   */
  async offload(parts: Part[]): Promise<Part[]> {
    const { artifacts } = this.core
    if (!artifacts) return parts
    if (this.held) await this.storePending()
    return offloadLargeParts(artifacts, this.latest, this.baseUrl, parts)
  }

  /**
   * Runs the handler unless the task was settled (canceled) before it could start. A task stored
   * before the run was made (a resumed one) is read again first, for a cancel stored since; a new
   * one is not: no one but this run can have written it before its insert, and since then a cancel
   * or shutdown in this process reaches the run itself, a cancel on another replica its notes.
   */
  start(): Promise<void> {
    if (!this.#new) return this.#resume()
    return this.stop ? Promise.resolve() : this.#runHandler()
  }

  async #resume(): Promise<void> {
    try {
      const fresh = await this.core.store.get(this.id)
      if (this.stop) return
      if (!fresh || isTerminal(fresh.task.status.state)) return this.settle(fresh ?? this.latest)
      this.latest = fresh
    } catch (error) {
      // Never left SUBMITTED by a run that did not start: FAILED now, or by a sweep once its lease expired.
      this.core.logger.error(`a2a: run start failed for task ${this.id}: ${scrub(error)}`)
      this.stop = { why: 'ended' }
      return this.#settleAs('TASK_STATE_FAILED', 'the agent could not start on this task (its database was unreachable); send the message again to retry')
    }
    return this.#runHandler()
  }

  /**
   * Held or stored, new or resumed: the writes of the run's first turn are stored together. The
   * handler's end is waited for by a reaction, not an await: a run held open for minutes keeps
   * no suspended frame of its own (a generator and its registers per run).
   */
  #runHandler(): Promise<void> {
    this.startPending()
    armDeadline(this, this.core.limits.taskTimeoutMs)
    const traced = startRunSpan(this.skill.id, this.id)
    if (!traced) return this.#handle()
    const handled = context.with(traced.context, () => this.#handle()).finally(() => traced.span.setAttribute('a2a.task_state', this.latest.task.status.state))
    return settleSpan(traced.span, handled)
  }

  #handle(): Promise<void> {
    let result: SkillResult | Promise<SkillResult>
    try {
      result = this.skill.handler(createTaskContext(this))
    } catch (error) {
      return this.#threw(error)
    }
    return Promise.resolve(result).then(
      (value) => this.#returned(value),
      (error: unknown) => this.#threw(error),
    )
  }

  #returned(result: SkillResult): Promise<void> | undefined {
    if (this.stop) return
    const untouched = this.writeCount === 0 && !this.latest.task.artifacts?.length
    const reply = result ? { ...result, contextId: this.latest.contextId, taskId: this.id } : undefined
    return this.#end((task) => withStatus(task, 'TASK_STATE_COMPLETED', reply), reply !== undefined && untouched)
  }

  #threw(error: unknown): Promise<void> {
    if (this.stop) return Promise.resolve()
    this.core.logger.warn(`a2a: skill "${this.skill.id}" threw on task ${this.id}: ${scrub(error)}`)
    return this.#end((task) => withStatus(task, 'TASK_STATE_FAILED', agentMessage(task, `skill "${this.skill.id}" failed`)))
  }

  /** The new task was removed again before the run started (its push config was refused): ends the run unstarted. */
  discard(): void {
    this.stop ??= { why: 'ended' }
    void this.settle(this.latest, false)
  }

  /** ctx.enqueue: checks the job and its input, then {@link handOff}s the task to it. */
  enqueue(job: Job, input: unknown, content?: Content): Promise<void> {
    return enqueueJob(this, this.core.jobs, this.core.agentId, job, input, content)
  }

  /**
   * Hands the task to a job (ctx.enqueue): what the run wrote is stored, then the task goes
   * WORKING under the job's `lease` and the run ends with its task open, its slot freed. The job
   * is stored by that write when the store can insert its row (store capability jobRows): a write that
   * fails or is declined leaves no job. Otherwise it is queued first (`enqueue`, idempotent): a
   * crash before the write leaves a queued job on a task under this run's lease, which the worker
   * takes over once that lease has lapsed.
   */
  async handOff(hand: JobHandOff, lease: RunLease, content?: Content): Promise<void> {
    this.assertOpen()
    await this.storePending()
    const store = capabilityOf(this.core.store, 'jobRows')
    const row = hand.row && store ? await hand.row() : undefined
    const job = row && (await store!.writesJobRow(row)) ? row : undefined
    if (!job) await hand.enqueue()
    const written = await this.changeTask((current) =>
      isTerminal(current.task.status.state)
        ? null
        : {
            ...changesOf(withStatus(current.task, 'TASK_STATE_WORKING', content === undefined ? undefined : agentMessage(current.task, content)), false),
            lease,
            ...(job ? { job } : {}),
          },
    )
    if (!written) {
      this.canceled(this.latest)
      throw new TaskCanceledError(this.id)
    }
    if (job) hand.stored?.()
    await this.release()
  }

  /** Ends the run leaving its task open, as stored (a job attempt that threw, or a worker stopping): its writes so far are kept. */
  async release(): Promise<void> {
    if (this.stop) return
    this.stop = { why: 'ended' }
    this.abort(new RunEndedError(this.id, this.latest.task.status.state))
    await this.storePending().catch((error: unknown) => this.core.logger.error(`a2a: storing the writes of task ${this.id} failed: ${scrub(error)}`))
    await this.settle(this.latest)
  }

  /** Shutdown: store CANCELED and cut the handler. */
  async cut(): Promise<void> {
    if (this.stop) return
    this.stop = { why: 'canceled' }
    this.abort(new TaskCanceledError(this.id))
    await this.#settleAs('TASK_STATE_CANCELED', 'canceled: the server is shutting down')
  }

  /** The run's own final write after the handler returned or threw; failures are logged, not thrown. */
  async #end(transition: (task: Task) => Transition, repliedWithMessage = false): Promise<void> {
    try {
      await this.write(transition, repliedWithMessage)
    } catch (error) {
      if (error instanceof TaskCanceledError || error instanceof RunEndedError || error instanceof TaskTimeoutError || this.insertFailed) return
      this.core.logger.error(`a2a: run finalize failed for task ${this.id}: ${scrub(error)}`)
      // Pending writes are stored all the same, as the handler left them, so its sender has an answer.
      await this.storePending().catch(() => undefined)
      await this.settle(this.latest)
    }
  }

  /** Stores a terminal state over whatever the task holds unless it is already terminal. */
  async #settleAs(state: TaskState, reason: string): Promise<void> {
    try {
      await this.changeTask((current) => (isTerminal(current.task.status.state) ? null : changesOf(withStatus(current.task, state, agentMessage(current.task, reason)), false)))
      await this.storePending()
    } catch (error) {
      if (this.insertFailed || error instanceof TaskCanceledError) return
      this.core.logger.error(`a2a: run finalize failed for task ${this.id}: ${scrub(error)}`)
    }
    await this.settle(this.latest)
  }

  async #timeout(): Promise<void> {
    if (this.stop) return
    const deadline = new DeadlineExceededError(this.core.limits.taskTimeoutMs)
    const error = new TaskTimeoutError(this.id, deadline)
    this.stop = { why: 'timed-out', error }
    this.abort(error)
    await this.#settleAs('TASK_STATE_FAILED', 'task timed out')
  }
}
