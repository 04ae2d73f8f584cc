/**
 * The PostgreSQL outbox's engine: a wake-up is a pg-boss job per config, and pg-boss's workers on
 * every replica run the drains, retrying a failed one with its backoff and expiring one whose
 * replica died. The outbox table lives in pg-boss's schema, so reliable delivery keeps to one schema.
 * @module
 */
import PgBoss from 'pg-boss'
import type pg from 'pg'
import { scrub } from '../../log/logger.js'
import { createQueueOnce } from '../../core/pg-boss-queue.js'
import type { DrainJob, OutboxEngine } from './outbox-seams.js'
import { outboxDdl, type outboxStatements } from './outbox-sql.js'
import { maxDrainMs, type RetrySettings } from './outbox.js'

const QUEUE = 'a2a-push-deliver'

export class PgBossEngine implements OutboxEngine {
  readonly #pool: Pick<pg.Pool, 'query'>
  readonly #schema: string
  readonly #sql: ReturnType<typeof outboxStatements>
  readonly #settings: RetrySettings & { pollingIntervalSeconds?: number }
  readonly #boss: PgBoss
  #workers: string[] = []
  #stopped = false

  constructor(
    pool: Pick<pg.Pool, 'query'>,
    schema: string,
    sql: ReturnType<typeof outboxStatements>,
    settings: RetrySettings & { pollingIntervalSeconds?: number },
    log: (line: string) => void,
  ) {
    this.#pool = pool
    this.#schema = schema
    this.#sql = sql
    this.#settings = settings
    // Once stopped, pg-boss's statements go nowhere, as with its own pool: a timer of its that
    // fires after stop() must not meet an ended pool.
    const db = {
      executeSql: (text: string, values?: unknown[]) => (this.#stopped ? Promise.resolve(undefined as never) : this.#pool.query(text, values)),
    }
    this.#boss = new PgBoss({ db, schema, schedule: false, supervise: true })
    this.#boss.on('error', (error) => log(`a2a: push outbox queue: ${scrub(error)}`))
  }

  async prepare(): Promise<void> {
    await this.#boss.start()
    await this.#pool.query(outboxDdl(this.#schema))
    await createQueueOnce(this.#boss, QUEUE, { policy: 'standard' })
  }

  async work(drain: (job: DrainJob) => Promise<void>, concurrency: number): Promise<void> {
    const work = { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: this.#settings.pollingIntervalSeconds ?? 2 } as const
    for (let i = 0; i < concurrency; i++) {
      this.#workers.push(await this.#boss.work<DrainJob['data']>(QUEUE, work, ([job]) => drain(job!)))
    }
  }

  async wake(configs: readonly DrainJob['data'][]): Promise<void> {
    if (configs.length === 0) return
    const { maxAttempts, retryDelaySeconds, timeoutMs } = this.#settings
    await this.#boss.insert(
      configs.map((data) => ({
        name: QUEUE,
        data,
        retryLimit: maxAttempts - 1,
        retryDelay: retryDelaySeconds,
        retryBackoff: true,
        // A job drains for at most half of this; past it pg-boss retries the job elsewhere.
        expireInSeconds: (2 * maxDrainMs(timeoutMs)) / 1000,
      })),
    )
    for (const id of this.#workers) this.#boss.notifyWorker(id)
  }

  /** Wakes configs whose head row no job will reach: quiet and not leased, or owned by a job pg-boss no longer holds. */
  async sweep(quietMs: number): Promise<void> {
    const { rows } = await this.#pool.query<{ task_id: string; config_id: string; job_id: string | null; lease_expired: boolean | null; quiet: boolean }>(this.#sql.stranded, [
      quietMs,
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
    await this.wake(wake)
  }

  async stop(): Promise<void> {
    await this.#boss.stop({ graceful: true, wait: true, close: false, timeout: this.#settings.timeoutMs + 5000 })
    this.#stopped = true
  }
}
