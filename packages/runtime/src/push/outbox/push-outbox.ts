/**
 * Reliable push delivery: every event for every push config is written to an outbox table in the
 * app's PostgreSQL database, and pg-boss workers on every replica that starts an outbox deliver
 * the rows, each config's in version order, retrying failures with backoff and dead-lettering a
 * row past its last attempt. Two replicas deliver each notification once, the final state last;
 * a row is delivered at least once (a replica that dies after the receiver answered but before
 * it recorded the answer leaves that row for another to send again).
 *
 * Delivery goes through the same connect-time SSRF guard as the best-effort dispatcher.
 * @module
 */
import PgBoss from 'pg-boss'
import pg from 'pg'
import { consoleLogger, scrub, type Logger } from '../../log/logger.js'
import { traceCarrier } from '../../trace/tracing.js'
import { capabilityOf } from '../../store/capabilities.js'
import type { PushDelivery, PushDeliveryContext, PushDeliveryProvider, PushEvent } from '../push-delivery.js'
import { taskForV03 } from '../generation.js'
import { deliverWebhook, webhookTarget } from '../webhook-client.js'
import { createQueueOnce } from '../../core/pg-boss-queue.js'
import { drain, type DrainContext, type DrainJob } from './drain.js'
import { outboxDdl, outboxStatements } from './outbox-sql.js'

export interface PushOutboxOptions {
  /** A pool the outbox shares (it adds an `error` listener); or give `connectionString`. */
  pool?: pg.Pool
  /** For a pool of the outbox's own (closed by stop()). */
  connectionString?: string
  /** The schema of the outbox table and pg-boss's tables; default `a2a_push`. Created on start. */
  schema?: string
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

export interface DeadLetter {
  id: string
  taskId: string
  configId: string
  owner: string
  version: number
  attempts: number
  lastError: string | null
  deadSince: Date
}

const QUEUE = 'a2a-push-deliver'
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

export class PushOutbox implements PushDeliveryProvider {
  readonly #options: PushOutboxOptions
  readonly #schema: string
  readonly #pool: pg.Pool
  readonly #ownPool: boolean
  readonly #sql: ReturnType<typeof outboxStatements>
  readonly #boss: PgBoss
  #logger: Logger
  #allowPrivate: boolean | undefined
  #workers: string[] = []
  #sweeper: NodeJS.Timeout | undefined
  #prepared: Promise<void> | undefined
  #started: Promise<void> | undefined
  #stopped = false
  #stopping: Promise<void> | undefined
  /** The stores of the exchanges attached: each writes the outbox rows with its task writes once started. */
  readonly #stores = new Set<PushDeliveryContext['store']>()
  #ready = false
  /** Per task, the tail of its notify chain: rows are written in event order. */
  readonly #chains = new Map<string, Promise<void>>()

  constructor(options: PushOutboxOptions) {
    this.#options = options
    this.#schema = options.schema ?? 'a2a_push'
    if (!SCHEMA_NAME.test(this.#schema)) {
      throw new Error(`PushOutbox schema "${this.#schema}" must be a lower-case SQL identifier like a2a_push`)
    }
    if (!options.pool && !options.connectionString) throw new Error("PushOutbox needs pool (the app's pg Pool) or connectionString")
    this.#ownPool = !options.pool
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: (options.concurrency ?? 4) + 2 })
    this.#logger = options.logger ?? consoleLogger
    this.#allowPrivate = options.allowPrivate
    // A dropped connection is an `error` on the pool; without a listener it ends the process.
    this.#pool.on('error', (error) => this.#log('error', `a2a: push outbox database connection lost: ${scrub(error)}`))
    this.#sql = outboxStatements(this.#schema)
    // Once stopped, pg-boss's statements go nowhere, as with its own pool: a timer of its that
    // fires after stop() must not meet an ended pool.
    const db = {
      executeSql: (text: string, values?: unknown[]) => (this.#stopped ? Promise.resolve(undefined as never) : this.#pool.query(text, values)),
    }
    this.#boss = new PgBoss({ db, schema: this.#schema, schedule: false, supervise: true })
    this.#boss.on('error', (error) => this.#log('error', `a2a: push outbox queue: ${scrub(error)}`))
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
      await this.#boss.start()
      await this.#pool.query(outboxDdl(this.#schema))
      await createQueueOnce(this.#boss, QUEUE, { policy: 'standard' })
      this.#ready = true
      await Promise.all([...this.#stores].map((store) => this.#queueIn(store)))
    })()
    return this.#prepared
  }

  async #start(): Promise<void> {
    await this.#prepare()
    const concurrency = Math.max(1, this.#options.concurrency ?? 4)
    const work = { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: this.#options.pollingIntervalSeconds ?? 2 } as const
    for (let i = 0; i < concurrency; i++) {
      this.#workers.push(await this.#boss.work<DrainJob['data']>(QUEUE, work, ([job]) => drain(job!, this.#drainContext())))
    }
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
    if (!this.#prepared) return
    await (this.#started ?? this.#prepared).catch(() => undefined)
    clearInterval(this.#sweeper)
    await this.idle()
    await this.#boss.stop({ graceful: true, wait: true, close: false, timeout: (this.#options.timeoutMs ?? 10_000) + 5000 })
    this.#stopped = true
    if (this.#ownPool) await this.#pool.end()
  }

  /** Resolves once every event handed in so far is written to the outbox. */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()])
  }

  /** Dead-lettered notifications, oldest first. */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const { rows } = await this.#pool.query(this.#sql.deadLetters, [limit])
    return rows.map((row) => ({
      id: String(row.id),
      taskId: row.task_id,
      configId: row.config_id,
      owner: row.owner,
      version: row.version,
      attempts: row.attempts,
      lastError: row.last_error,
      deadSince: row.updated_at,
    }))
  }

  /** Puts dead-lettered notifications back in line, with fresh attempts; answers how many. */
  async redeliver(ids: string[]): Promise<number> {
    const { rows } = await this.#pool.query<{ task_id: string; config_id: string }>(this.#sql.redeliver, [ids])
    await this.#wake(rows.map((row) => ({ taskId: row.task_id, configId: row.config_id })))
    return rows.length
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
   * Has the store write the rows with its task writes (PostgresStore on this database): a
   * process that dies between its commit and the hand-over here then loses no event.
   */
  async #queueIn(store: PushDeliveryContext['store']): Promise<void> {
    await capabilityOf(store, 'pushOutbox')
      ?.queuePushOutbox(this.#schema)
      .catch((error: unknown) => this.#log('error', `a2a: push outbox rows stay apart from the task writes: ${scrub(error)}`))
  }

  async #enqueue(event: PushEvent, context: PushDeliveryContext, traceContext: Record<string, string> | null): Promise<void> {
    const written = capabilityOf(context.store, 'pushOutbox')?.outboxedFor(event.taskId, event.version)
    if (written) {
      // The task write wrote the rows: only their wake-up is left.
      await this.#prepare()
      await this.#wake(written.map((configId) => ({ taskId: event.taskId, configId })))
      return
    }
    const listed = await context.store.listPushConfigs(event.taskId)
    // A 0.3 config is sent the task (drain.ts shapes it): none once the task is gone.
    const task = listed.some((config) => config.generation === '0.3') ? await taskForV03(event, context.store) : undefined
    const configs = listed.filter((config) => config.generation !== '0.3' || task !== undefined)
    if (configs.length === 0) return
    await this.#prepare()
    const rows = configs.map((config) => ({
      task_id: config.taskId,
      config_id: config.id,
      owner: config.owner,
      version: event.version,
      target: webhookTarget(config),
      body: config.generation === '0.3' ? { task } : event.response,
      trace_context: traceContext,
    }))
    await this.#pool.query(this.#sql.insert, [JSON.stringify(rows)])
    // Written before its wake-up: a replica that dies in between leaves the rows to the sweep.
    await this.#wake(configs.map((config) => ({ taskId: config.taskId, configId: config.id })))
  }

  async #wake(configs: DrainJob['data'][]): Promise<void> {
    if (configs.length === 0) return
    const maxAttempts = Math.max(1, this.#options.maxAttempts ?? 8)
    const timeoutSeconds = Math.ceil((this.#options.timeoutMs ?? 10_000) / 1000)
    await this.#boss.insert(
      configs.map((data) => ({
        name: QUEUE,
        data,
        retryLimit: maxAttempts - 1,
        retryDelay: Math.max(1, this.#options.retryDelaySeconds ?? 5),
        retryBackoff: true,
        // A job drains for at most half of this; past it pg-boss retries the job elsewhere.
        expireInSeconds: Math.max(60, timeoutSeconds * 12),
      })),
    )
    for (const id of this.#workers) this.#boss.notifyWorker(id)
  }

  #drainContext(): DrainContext {
    const timeoutMs = this.#options.timeoutMs ?? 10_000
    return {
      query: async <Row>(text: string, values: unknown[]) => (await this.#pool.query(text, values)).rows as Row[],
      sql: this.#sql,
      deliver: this.#options.deliver ?? deliverWebhook,
      allowPrivate: this.#allowPrivate ?? false,
      timeoutMs,
      leaseMs: timeoutMs + 5000,
      maxDrainMs: Math.max(60, Math.ceil(timeoutMs / 1000) * 12) * 500,
      logger: this.#logger,
      requeue: (data) => this.#wake([data]),
    }
  }

  /** Prunes old rows and wakes configs whose head row no job will reach (see `stranded`). */
  async #sweep(): Promise<void> {
    try {
      const interval = this.#options.sweepIntervalMs ?? 60_000
      await this.#pool.query(this.#sql.prune, [Math.max(interval, 3_600_000), this.#options.keepDeadMs ?? 14 * 86_400_000])
      const { rows } = await this.#pool.query<{ task_id: string; config_id: string; job_id: string | null; lease_expired: boolean | null; quiet: boolean }>(this.#sql.stranded, [
        interval / 2,
      ])
      const wake: DrainJob['data'][] = []
      for (const row of rows) {
        if (!row.quiet || row.lease_expired === false) continue
        if (row.job_id) {
          const job = await this.#boss.getJobById(QUEUE, row.job_id)
          if (job && (job.state === 'created' || job.state === 'retry' || job.state === 'active')) continue
          await this.#pool.query(this.#sql.release, [row.task_id, row.config_id])
        }
        wake.push({ taskId: row.task_id, configId: row.config_id })
      }
      await this.#wake(wake)
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
