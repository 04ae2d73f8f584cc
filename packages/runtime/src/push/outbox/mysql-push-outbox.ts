/**
 * Reliable push delivery for MySQL 8 and MariaDB apps: PushOutbox's guarantees (push-outbox.ts)
 * on a table `a2a_push_outbox` in the app's database, through the mariadb driver the app's Prisma
 * adapter runs on. Every replica that starts the outbox delivers the rows, each config's in
 * version order, each notification once across replicas (at least once when a replica dies
 * mid-delivery), retrying failures with backoff and dead-lettering a row past its last attempt.
 * On MysqlStore in the same database the task write writes the rows in its own transaction.
 * @module
 */
import type mariadb from 'mariadb'
import { checkPoolOrUrl, mariadbPool } from '../../store/sql/mysql/mariadb-pool.js'
import { withCause } from '../../store/sql/mysql/pool-errors.js'
import { MysqlOutboxEngine } from './mysql-outbox-engine.js'
import { MYSQL_OUTBOX_TABLE, MysqlOutboxRows } from './mysql-outbox-sql.js'
import { Outbox, retrySettings, type OutboxOptions } from './outbox.js'

export type { DeadLetter } from './outbox-seams.js'

export interface MysqlPushOutboxOptions extends OutboxOptions {
  /** A mariadb pool the outbox shares (it adds `error` listeners that log); or give `url`. */
  pool?: mariadb.Pool
  /** For a pool of the outbox's own (closed by stop()): the app's `mysql://` or `mariadb://` URL. */
  url?: string
}

export class MysqlPushOutbox extends Outbox {
  constructor(options: MysqlPushOutboxOptions) {
    // The URL is refused here, though the pool is made when the outbox first needs it.
    checkPoolOrUrl('MysqlPushOutbox', options)
    super(options, MYSQL_OUTBOX_TABLE, (log) => {
      const onLost = (error: Error) => log(`a2a: push outbox database connection lost: ${withCause(error)}`)
      const { pool, url, close } = mariadbPool('MysqlPushOutbox', options, { connectionLimit: (options.concurrency ?? 4) + 2 }, onLost)
      const settings = retrySettings(options)
      const rows = new MysqlOutboxRows(pool, settings.retryDelaySeconds, url)
      const engine = new MysqlOutboxEngine(rows, { ...settings, pollingIntervalSeconds: options.pollingIntervalSeconds }, log)
      return { rows, engine, close }
    })
  }
}
