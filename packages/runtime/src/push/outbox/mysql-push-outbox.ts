/**
 * Reliable push delivery for MySQL 8 and MariaDB apps: PushOutbox's guarantees (push-outbox.ts)
 * on a table `a2a_push_outbox` in the app's database, through the mariadb driver the app's Prisma
 * adapter runs on. Every replica that starts the outbox delivers the rows, each config's in
 * version order, each notification once across replicas (at least once when a replica dies
 * mid-delivery), retrying failures with backoff and dead-lettering a row past its last attempt.
 * On MysqlStore in the same database the task write writes the rows in its own transaction.
 * @module
 */
import mariadb from 'mariadb'
import { scrub } from '../../log/logger.js'
import { logPoolErrors, withCause } from '../../store/sql/mysql/pool-errors.js'
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

const URL_SCHEME = /^(mysql|mariadb):\/\//

export class MysqlPushOutbox extends Outbox {
  constructor(options: MysqlPushOutboxOptions) {
    if (!options?.pool && !options?.url) throw new Error("MysqlPushOutbox needs pool (a mariadb pool) or url (the app's mysql:// URL, e.g. mysql://root@127.0.0.1:3306/invoices)")
    if (!options.pool) checkUrl(options.url!)
    super(options, MYSQL_OUTBOX_TABLE, (log) => {
      const pool = options.pool ?? mariadb.createPool(ownPool(options.url!, (options.concurrency ?? 4) + 2))
      logPoolErrors(pool, (error) => log(`a2a: push outbox database connection lost: ${withCause(error)}`))
      const settings = retrySettings(options)
      const rows = new MysqlOutboxRows(pool, settings.retryDelaySeconds, options.pool ? undefined : options.url)
      const engine = new MysqlOutboxEngine(rows, { ...settings, pollingIntervalSeconds: options.pollingIntervalSeconds }, log)
      return { rows, engine, close: async () => (options.pool ? undefined : pool.end()) }
    })
  }
}

function checkUrl(url: string): void {
  if (!URL_SCHEME.test(url))
    throw new Error(
      `MysqlPushOutbox url must be a mysql:// or mariadb:// URL, e.g. mysql://root@127.0.0.1:3306/invoices; got one starting ${JSON.stringify(scrub(String(url).split('//')[0], 20))}`,
    )
  if (!new URL(url).pathname.slice(1)) throw new Error('MysqlPushOutbox needs the database in its URL: mysql://user:password@host:3306/<database>')
}

/** The driver reads mariadb:// URLs only; `connections` at most. */
function ownPool(url: string, connections: number): string {
  const config = new URL(url.replace(/^mysql:/, 'mariadb:'))
  config.searchParams.set('connectionLimit', String(connections))
  return config.href
}
