/**
 * `@a2a-agent/runtime/push-outbox`: reliable push delivery for PostgreSQL apps. Events go to an
 * outbox table in the app's database and pg-boss workers on every replica deliver them, each
 * config's in order, with retries, backoff and a dead-letter state. Needs the optional peer
 * dependencies pg and pg-boss (10.x, the line that runs on Node 20); apps that do not import this
 * entry never load either.
 *
 * @example
 * ```ts
 * import { PushOutbox } from '@a2a-agent/runtime/push-outbox'
 *
 * const outbox = new PushOutbox({ connectionString: process.env.DATABASE_URL })
 * await outbox.start()
 * const exchange = createExchange({ ..., pushDelivery: outbox })
 * // on shutdown: await exchange.shutdown(); await outbox.stop()
 * ```
 * @module
 */
export { PushOutbox, type DeadLetter, type PushOutboxOptions } from './push/outbox/push-outbox.js'
