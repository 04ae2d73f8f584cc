/**
 * `@a2a-agent/runtime/mysql-push-outbox`: reliable push delivery for MySQL 8 and MariaDB apps, a
 * table in the app's database, with PushOutbox's guarantees: each config's events in order, once
 * across replicas, retries with backoff, dead letters. Needs the optional peer dependency mariadb
 * (3.x, the driver of @prisma/adapter-mariadb); apps that do not import this entry never load it.
 *
 * @example
 * ```ts
 * import { MysqlPushOutbox } from '@a2a-agent/runtime/mysql-push-outbox'
 *
 * const outbox = new MysqlPushOutbox({ url: process.env.DATABASE_URL })
 * await outbox.start()
 * const exchange = createExchange({ ..., pushDelivery: outbox })
 * // on shutdown: await exchange.shutdown(); await outbox.stop()
 * ```
 * @module
 */
export { MysqlPushOutbox, type DeadLetter, type MysqlPushOutboxOptions } from './push/outbox/mysql-push-outbox.js'
