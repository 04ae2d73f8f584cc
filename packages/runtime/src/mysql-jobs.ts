/**
 * `@a2a-agent/runtime/mysql-jobs`: the job queue of MySQL 8 and MariaDB apps, a table in the app's
 * database. Needs the optional peer dependency mariadb (3.x, the driver of @prisma/adapter-mariadb);
 * apps that do not import this entry never load it.
 *
 * @example
 * ```ts
 * import { MysqlJobQueue } from '@a2a-agent/runtime/mysql-jobs'
 *
 * const queue = new MysqlJobQueue({ url: process.env.DATABASE_URL })
 * const exchange = createExchange({ ..., jobs: { queue, jobs: [statementJob] } })
 * const worker = exchange.jobWorker()
 * await worker.start()
 * // on shutdown: await worker.stop(); await exchange.shutdown(); await queue.stop()
 * ```
 * @module
 */
export { MysqlJobQueue, mysqlJobId, type DeadMysqlJob, type MysqlJobQueueOptions } from './jobs/mysql-job-queue.js'
