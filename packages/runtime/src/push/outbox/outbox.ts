/**
 * What the push outboxes of PostgreSQL (push-outbox.ts) and MySQL (mysql-push-outbox.ts) share:
 * events in, outbox rows written (or left to a store that writes them with its task writes),
 * drain jobs woken, dead letters listed and put back, the sweep. Each database brings its
 * {@link OutboxRows} and {@link OutboxEngine} (outbox-seams.ts).
 * @module
 */
import { consoleLogger, scrub, type Logger } from '../../log/logger.js'
import { traceCarrier } from '../../trace/tracing.js'
import { capabilityOf } from '../../store/capabilities.js'
import type { PushDelivery, PushDeliveryContext, PushDeliveryProvider, PushEvent } from '../push-delivery.js'
import { taskForV03 } from '../generation.js'
import { deliverWebhook, webhookTarget } from '../webhook-client.js'
import { drain, type DrainContext } from './drain.js'
import type { DeadLetter, OutboxEngine, OutboxRows } from './outbox-seams.js'

/** The options both outboxes take. */
export interface OutboxOptions {
  /** Attempts per notification before it is dead-lettered; default 8. */
  maxAttempts?: number
  /** The first retry's delay in whole seconds, doubled (with jitter) for each next one; default 5. */
  retryDelaySeconds?: number
  /** Per delivery; default 10 s. */
  timeoutMs?: number
  /** Deliveries this replica runs at once; default 4. */
  concurrency?: number
  /** How often idle workers look for rows other replicas queued (this replica's wake them at once); default 2 s. */
  pollingIntervalSeconds?: number
  /**
   * How often the outbox looks for rows a crashed replica left (a row quiet for half of this is
   * woken) and prunes old rows; default 60 s.
   */
  sweepIntervalMs?: number
  /** Dead-lettered rows are kept this long for deadLetters() and redeliver(); default 14 days. */
  keepDeadMs?: number
  /**
   * Permit internal push targets (loopback, RFC 1918, …): development and tests only. Default: the
   * attached exchange's allowPrivatePush, else false; set it alike on every replica.
   */
  allowPrivate?: boolean
  /** Default: the attached exchange's logger, else the console. */
  logger?: Logger
  /** Delivery seam; defaults to the connect-time guarded {@link deliverWebhook}. */
  deliver?: typeof deliverWebhook
}

/** The retry settings with their defaults applied, as the engines read them. */
export interface RetrySettings {
  maxAttempts: number
  retryDelaySeconds: number
  timeoutMs: number
}

/** How long one drain job runs before it hands the rest to a fresh one: half of pg-boss's expiry for it. */
export const maxDrainMs = (timeoutMs: number): number => Math.max(60, Math.ceil(timeoutMs / 1000) * 12) * 500

/** What a database's outbox brings: its statements, its engine, and how to close its own pool. */
export interface OutboxBackend {
  rows: OutboxRows
  engine: OutboxEngine
  close(): Promise<void>
}

/** Dead-letter ids as deadLetters() gives them: the table's numeric ids. */
const ROW_ID = /^[1-9][0-9]{0,18}$/

export function retrySettings(options: OutboxOptions): RetrySettings {
  return {
    maxAttempts: Math.max(1, options.maxAttempts ?? 8),
    retryDelaySeconds: Math.max(1, options.retryDelaySeconds ?? 5),
    timeoutMs: options.timeoutMs ?? 10_000,
  }
}

export abstract class Outbox implements PushDeliveryProvider {
  readonly #options: OutboxOptions
  /** What the stores that write the rows themselves are given (PostgreSQL: the schema; MySQL: the table). */
  readonly #name: string
  readonly #backend: OutboxBackend
  #logger: Logger
  #allowPrivate: boolean | undefined
  #sweeper: NodeJS.Timeout | undefined
  #prepared: Promise<void> | undefined
  #started: Promise<void> | undefined
  #stopping: Promise<void> | undefined
  /** The stores of the exchanges attached: each writes the outbox rows with its task writes once started. */
  readonly #stores = new Set<PushDeliveryContext['store']>()
  #ready = false
  /** Per task, the tail of its notify chain: rows are written in event order. */
  readonly #chains = new Map<string, Promise<void>>()

  /** `backend` is made once the outbox can log: its pool's and engine's errors go to `log`. */
  protected constructor(options: OutboxOptions, name: string, backend: (log: (line: string) => void) => OutboxBackend) {
    this.#options = options
    this.#name = name
    this.#logger = options.logger ?? consoleLogger
    this.#allowPrivate = options.allowPrivate
    this.#backend = backend((line) => this.#log('error', line))
  }

  /** Called by the exchange: its events come here, and its logger and allowPrivatePush apply. */
  attach(context: PushDeliveryContext): PushDelivery {
    if (!this.#options.logger) this.#logger = context.logger
    this.#allowPrivate ??= context.allowPrivate
    this.#stores.add(context.store)
    if (this.#ready) void this.#queueIn(context.store)
    return {
      notify: (event) => this.#notify(event, context),
      idle: () => this.idle(),
    }
  }

  /**
   * Creates the tables if needed and starts this replica's workers. A replica that only queues
   * (serve()'s web and agent roles) never calls it: its first event creates the tables, and the
   * worker role's replicas deliver.
   */
  start(): Promise<void> {
    this.#started ??= this.#start()
    return this.#started
  }

  /** The tables and the queue, without workers. */
  #prepare(): Promise<void> {
    this.#prepared ??= (async () => {
      await this.#backend.engine.prepare()
      this.#ready = true
      await Promise.all([...this.#stores].map((store) => this.#queueIn(store)))
    })()
    return this.#prepared
  }

  async #start(): Promise<void> {
    await this.#prepare()
    await this.#backend.engine.work((job) => drain(job, this.#drainContext()), Math.max(1, this.#options.concurrency ?? 4))
    await this.#sweep()
    this.#sweeper = setInterval(() => void this.#sweep(), this.#options.sweepIntervalMs ?? 60_000)
    this.#sweeper.unref()
  }

  /** Stops the workers (a delivery in flight finishes) and closes the outbox's own pool. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop()
    return this.#stopping
  }

  async #stop(): Promise<void> {
    if (!this.#prepared) return this.#backend.close()
    await (this.#started ?? this.#prepared).catch(() => undefined)
    clearInterval(this.#sweeper)
    await this.idle()
    await this.#backend.engine.stop()
    await this.#backend.close()
  }

  /** Resolves once every event handed in so far is written to the outbox. */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()])
  }

  /** Dead-lettered notifications, oldest first. */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`deadLetters(limit) takes a whole number of at least 1, not ${scrub(limit, 40)}`)
    return this.#backend.rows.deadLetters(limit)
  }

  /** Puts dead-lettered notifications back in line, with fresh attempts; answers how many. */
  async redeliver(ids: string[]): Promise<number> {
    const bad = Array.isArray(ids) ? ids.find((id) => typeof id !== 'string' || !ROW_ID.test(id)) : ids
    if (bad !== undefined) throw new TypeError(`redeliver(ids) takes the ids deadLetters() gave (digit strings like "42"), not ${scrub(JSON.stringify(bad) ?? String(bad), 60)}`)
    if (ids.length === 0) return 0
    const configs = await this.#backend.rows.redeliver(ids)
    await this.#backend.engine.wake(configs)
    return configs.length
  }

  #notify(event: PushEvent, context: PushDeliveryContext): Promise<void> {
    const previous = this.#chains.get(event.taskId) ?? Promise.resolve()
    // Taken now, in the caller's context: the rows carry it to the replica that delivers them.
    const traceContext = traceCarrier()
    const current = previous
      .then(() => this.#enqueue(event, context, traceContext))
      .catch((error: unknown) => {
        this.#log('error', `a2a: push notification for task ${scrub(event.taskId, 100)} version ${event.version} was not queued: ${scrub(error)}`)
      })
    this.#chains.set(event.taskId, current)
    return current.finally(() => {
      if (this.#chains.get(event.taskId) === current) this.#chains.delete(event.taskId)
    })
  }

  /**
   * Has the store write the rows with its task writes (PostgresStore, MysqlStore on this
   * database): a process that dies between its commit and the hand-over here then loses no event.
   */
  async #queueIn(store: PushDeliveryContext['store']): Promise<void> {
    await capabilityOf(store, 'pushOutbox')
      ?.queuePushOutbox(this.#name)
      .catch((error: unknown) => this.#log('error', `a2a: push outbox rows stay apart from the task writes: ${scrub(error)}`))
  }

  async #enqueue(event: PushEvent, context: PushDeliveryContext, traceContext: Record<string, string> | null): Promise<void> {
    const written = capabilityOf(context.store, 'pushOutbox')?.outboxedFor(event.taskId, event.version)
    if (written) {
      // The task write wrote the rows: only their wake-up is left.
      await this.#prepare()
      await this.#backend.engine.wake(written.map((configId) => ({ taskId: event.taskId, configId })))
      return
    }
    const listed = await context.store.listPushConfigs(event.taskId)
    // A 0.3 config is sent the task (drain.ts shapes it): none once the task is gone.
    const task = listed.some((config) => config.generation === '0.3') ? await taskForV03(event, context.store) : undefined
    const configs = listed.filter((config) => config.generation !== '0.3' || task !== undefined)
    if (configs.length === 0) return
    await this.#prepare()
    await this.#backend.rows.insert(
      configs.map((config) => ({
        task_id: config.taskId,
        config_id: config.id,
        owner: config.owner,
        version: event.version,
        target: webhookTarget(config),
        body: config.generation === '0.3' ? { task } : event.response,
        trace_context: traceContext,
      })),
    )
    // Written before its wake-up: a replica that dies in between leaves the rows to the sweep.
    await this.#backend.engine.wake(configs.map((config) => ({ taskId: config.taskId, configId: config.id })))
  }

  #drainContext(): DrainContext {
    const { timeoutMs } = retrySettings(this.#options)
    return {
      rows: this.#backend.rows,
      deliver: this.#options.deliver ?? deliverWebhook,
      allowPrivate: this.#allowPrivate ?? false,
      timeoutMs,
      leaseMs: timeoutMs + 5000,
      maxDrainMs: maxDrainMs(timeoutMs),
      logger: this.#logger,
      requeue: (data) => this.#backend.engine.wake([data]),
    }
  }

  /** Prunes old rows and wakes configs whose rows no worker will reach. */
  async #sweep(): Promise<void> {
    try {
      const interval = this.#options.sweepIntervalMs ?? 60_000
      await this.#backend.rows.prune(Math.max(interval, 3_600_000), this.#options.keepDeadMs ?? 14 * 86_400_000)
      await this.#backend.engine.sweep(interval / 2)
    } catch (error) {
      this.#log('error', `a2a: push outbox sweep failed: ${scrub(error)}`)
    }
  }

  #log(level: 'warn' | 'error', line: string): void {
    try {
      this.#logger[level](line)
    } catch {
      // Nowhere left to report it.
    }
  }
}
