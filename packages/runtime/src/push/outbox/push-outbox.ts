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
import pg from 'pg'
import { scrub } from '../../log/logger.js'
import { Outbox, retrySettings, type OutboxOptions } from './outbox.js'
import { pgOutboxRows } from './outbox-sql.js'
import { PgBossEngine } from './pg-boss-engine.js'

export type { DeadLetter } from './outbox-seams.js'

export interface PushOutboxOptions extends OutboxOptions {
  /** A pool the outbox shares (it adds an `error` listener); or give `connectionString`. */
  pool?: pg.Pool
  /** For a pool of the outbox's own (closed by stop()). */
  connectionString?: string
  /** The schema of the outbox table and pg-boss's tables; default `a2a_push`. Created on start. */
  schema?: string
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

export class PushOutbox extends Outbox {
  constructor(options: PushOutboxOptions) {
    const schema = options.schema ?? 'a2a_push'
    if (!SCHEMA_NAME.test(schema)) throw new Error(`PushOutbox schema "${schema}" must be a lower-case SQL identifier like a2a_push`)
    if (!options.pool && !options.connectionString) throw new Error("PushOutbox needs pool (the app's pg Pool) or connectionString")
    super(options, schema, (log) => {
      const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: (options.concurrency ?? 4) + 2 })
      // A dropped connection is an `error` on the pool; without a listener it ends the process.
      pool.on('error', (error) => log(`a2a: push outbox database connection lost: ${scrub(error)}`))
      const rows = pgOutboxRows(pool, schema)
      const engine = new PgBossEngine(pool, schema, rows.sql, { ...retrySettings(options), pollingIntervalSeconds: options.pollingIntervalSeconds }, log)
      return { rows, engine, close: async () => (options.pool ? undefined : pool.end()) }
    })
  }
}
