/**
 * `@a2a-agent/runtime/pg-boss-jobs`: the job queue of PostgreSQL apps, on pg-boss. Needs the
 * optional peer dependencies pg and pg-boss (10.x); apps that do not import this entry never load either.
 *
 * @example
 * ```ts
 * import { PgBossJobQueue } from '@a2a-agent/runtime/pg-boss-jobs'
 *
 * const queue = new PgBossJobQueue({ connectionString: process.env.DATABASE_URL })
 * const exchange = createExchange({ ..., jobs: { queue, jobs: [statementJob] } })
 * const worker = exchange.jobWorker()
 * await worker.start()
 * // on shutdown: await worker.stop(); await exchange.shutdown(); await queue.stop()
 * ```
 * @module
 */
export { PgBossJobQueue, type PgBossJobQueueOptions } from './jobs/pg-boss-job-queue.js'
