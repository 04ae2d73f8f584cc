/**
 * The MySQL/MariaDB outbox table and its statements: outbox-sql.ts's rows and states in MySQL's
 * SQL, on the mariadb driver. MySQL has no `UPDATE … RETURNING` nor data-modifying CTEs: a claim
 * is a short transaction (the config's head row locked, then leased). Times are the database's
 * clock in ms (store/sql/mysql/clock.ts), so replicas on hosts whose clocks differ agree on leases
 * and backoffs. A failed row's backoff is the `due_at` of every pending row of its config: no
 * claim takes them before it, and the engine's search for due heads never meets them meanwhile.
 * @module
 */
import type mariadb from 'mariadb'
import { DATABASE_MS as NOW } from '../../store/sql/mysql/clock.js'
import { unreachable } from '../../store/sql/mysql/pool-errors.js'
import { pruneRows, readCommitted } from '../../store/sql/mysql/transaction.js'
import type { WebhookTarget } from '../webhook-client.js'
import { deadLetterOf, type DeadLetter, type DeadRow, type DrainJob, type NewOutboxRow, type OutboxRow, type OutboxRows } from './outbox-seams.js'

/** The table, in the app's database beside the task store's; `a2a migrate` leaves it out of the app's schema. */
export const MYSQL_OUTBOX_TABLE = 'a2a_push_outbox'

const T = MYSQL_OUTBOX_TABLE

// Ids as the store's (VARCHAR(191)), compared byte for byte. The index on (task_id, config_id,
// state, version) finds a config's head row; (state, due_at) the due heads of every config.
const DDL = `CREATE TABLE IF NOT EXISTS ${T} (
  id BIGINT NOT NULL AUTO_INCREMENT,
  task_id VARCHAR(191) COLLATE utf8mb4_bin NOT NULL,
  config_id VARCHAR(191) COLLATE utf8mb4_bin NOT NULL,
  owner VARCHAR(191) NOT NULL,
  version INT NOT NULL,
  target LONGTEXT NOT NULL,
  body LONGTEXT NOT NULL,
  trace_context TEXT NULL,
  state VARCHAR(9) CHARACTER SET ascii NOT NULL DEFAULT 'pending',
  attempts INT NOT NULL DEFAULT 0,
  due_at BIGINT NOT NULL,
  lease_until BIGINT NULL,
  leased_by CHAR(36) CHARACTER SET ascii NULL,
  last_error TEXT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY ${T}_config (task_id, config_id, state, version),
  KEY ${T}_due (state, due_at),
  KEY ${T}_kept (state, updated_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`

/** Pending rows with no older pending row of their config, due and not leased: what a worker may claim, soonest first. */
const HEADS = `SELECT o.task_id, o.config_id, o.attempts FROM ${T} o
  WHERE o.state = 'pending' AND o.due_at <= ${NOW} AND (o.lease_until IS NULL OR o.lease_until < ${NOW})
    AND NOT EXISTS (SELECT 1 FROM ${T} h WHERE h.task_id = o.task_id AND h.config_id = o.config_id AND h.state = 'pending'
      AND (h.version < o.version OR (h.version = o.version AND h.id < o.id)))
  ORDER BY o.due_at, o.id LIMIT ?`

/**
 * The config's head row, locked, with the newest version delivered to the config (read, not
 * locked: a locking clause reaches no subquery). Never SKIP LOCKED: skipping a head another
 * transaction holds would hand out the row behind it, out of order; the lock is held for a
 * claim's few statements.
 */
const HEAD = `SELECT CAST(o.id AS CHAR) AS id, o.task_id, o.config_id, o.version, o.target, o.body, o.trace_context, o.attempts,
    o.due_at <= ${NOW} AND (o.lease_until IS NULL OR o.lease_until < ${NOW} OR o.leased_by = ?) AS claimable,
    (SELECT MAX(d.version) FROM ${T} d WHERE d.task_id = o.task_id AND d.config_id = o.config_id AND d.state = 'delivered') AS delivered_version
  FROM ${T} o WHERE o.task_id = ? AND o.config_id = ? AND o.state = 'pending' ORDER BY o.version, o.id LIMIT 1 FOR UPDATE`

interface HeadRow {
  id: string
  task_id: string
  config_id: string
  version: number
  target: string
  body: string
  trace_context: string | null
  attempts: number
  claimable: number
  delivered_version: number | null
}

/** A pending head row the engine may start a drain for. */
export interface DueHead {
  task_id: string
  config_id: string
  attempts: number
}

/** A row's target; an empty authentication (a 0.3 config's, as MysqlStore writes it) is none. */
function targetOf(json: string): WebhookTarget {
  const target = JSON.parse(json) as WebhookTarget
  if (target.authentication && Object.keys(target.authentication).length === 0) delete target.authentication
  return target
}

export class MysqlOutboxRows implements OutboxRows {
  readonly #pool: mariadb.Pool
  readonly #retryDelayMs: number
  /** The URL of the outbox's own pool, named when it cannot connect. */
  readonly #url: string | undefined

  constructor(pool: mariadb.Pool, retryDelaySeconds: number, url?: string) {
    this.#pool = pool
    this.#retryDelayMs = retryDelaySeconds * 1000
    this.#url = url
  }

  /** Creates the table when missing; rejects naming the URL (without its password) when the outbox's own pool cannot connect. */
  async create(): Promise<void> {
    await this.#query(DDL).catch(unreachable('MysqlPushOutbox', this.#url))
  }

  /** Up to `limit` due head rows, soonest first, read without locks (a claim decides). */
  heads(limit: number): Promise<DueHead[]> {
    return this.#query<DueHead[]>(HEADS, [limit])
  }

  async insert(rows: readonly NewOutboxRow[]): Promise<void> {
    if (rows.length === 0) return
    const values = rows.map(() => `(?, ?, ?, ?, ?, ?, ?, ${NOW}, ${NOW}, ${NOW})`).join(', ')
    await this.#query(
      `INSERT INTO ${T} (task_id, config_id, owner, version, target, body, trace_context, due_at, created_at, updated_at) VALUES ${values}`,
      rows.flatMap((row) => [
        row.task_id,
        row.config_id,
        row.owner,
        row.version,
        JSON.stringify(row.target),
        JSON.stringify(row.body),
        row.trace_context && JSON.stringify(row.trace_context),
      ]),
    )
  }

  claim(taskId: string, configId: string, job: DrainJob, leaseMs: number): Promise<OutboxRow | undefined> {
    return readCommitted(this.#pool, async (query) => {
      const [head] = await query<HeadRow[]>(HEAD, [job.id, taskId, configId])
      if (!head || !Number(head.claimable)) return undefined
      await query(`UPDATE ${T} SET lease_until = ${NOW} + ?, leased_by = ? WHERE id = ?`, [leaseMs, job.id, head.id])
      return {
        id: head.id,
        task_id: head.task_id,
        config_id: head.config_id,
        version: head.version,
        target: targetOf(head.target),
        body: JSON.parse(head.body),
        trace_context: head.trace_context === null ? null : JSON.parse(head.trace_context),
        attempts: head.attempts,
        delivered_version: head.delivered_version,
      }
    })
  }

  delivered(row: OutboxRow): Promise<void> {
    return readCommitted(this.#pool, async (query) => {
      await Promise.all([
        query(`UPDATE ${T} SET state = 'delivered', attempts = attempts + 1, lease_until = NULL, leased_by = NULL, last_error = NULL, updated_at = ${NOW} WHERE id = ?`, [row.id]),
        query(`DELETE FROM ${T} WHERE task_id = ? AND config_id = ? AND state = 'delivered' AND id <> ?`, [row.task_id, row.config_id, row.id]),
      ])
    })
  }

  async stale(row: OutboxRow): Promise<void> {
    await this.#query(`DELETE FROM ${T} WHERE id = ?`, [row.id])
  }

  /** Holds the config's pending rows (the head's retry and the rows behind it) for the backoff: pg-boss's, doubling with jitter. */
  failed(row: OutboxRow, error: string, _job: DrainJob): Promise<void> {
    const failures = row.attempts + 1
    const backoffMs = Math.round(((this.#retryDelayMs * 2 ** Math.min(16, failures)) / 2) * (1 + Math.random()))
    return readCommitted(this.#pool, async (query) => {
      await Promise.all([
        query(`UPDATE ${T} SET attempts = attempts + 1, last_error = ?, lease_until = NULL, leased_by = NULL, updated_at = ${NOW} WHERE id = ?`, [error, row.id]),
        query(`UPDATE ${T} SET due_at = ${NOW} + ? WHERE task_id = ? AND config_id = ? AND state = 'pending'`, [backoffMs, row.task_id, row.config_id]),
      ])
    })
  }

  async dead(row: OutboxRow, error: string): Promise<void> {
    await this.#query(`UPDATE ${T} SET state = 'dead', attempts = attempts + 1, last_error = ?, lease_until = NULL, leased_by = NULL, updated_at = ${NOW} WHERE id = ?`, [
      error,
      row.id,
    ])
  }

  async prune(deliveredMs: number, deadMs: number): Promise<void> {
    await pruneRows(this.#pool, T, `state = 'delivered' AND updated_at < ${NOW} - ?`, [deliveredMs])
    await pruneRows(this.#pool, T, `state = 'dead' AND updated_at < ${NOW} - ?`, [deadMs])
  }

  async deadLetters(limit: number): Promise<DeadLetter[]> {
    const rows = await this.#query<DeadRow[]>(
      `SELECT CAST(id AS CHAR) AS id, task_id, config_id, owner, version, attempts, last_error, updated_at FROM ${T} WHERE state = 'dead' ORDER BY updated_at, id LIMIT ?`,
      [limit],
    )
    return rows.map(deadLetterOf)
  }

  redeliver(ids: readonly string[]): Promise<DrainJob['data'][]> {
    return readCommitted(this.#pool, async (query) => {
      const rows = await query<{ task_id: string; config_id: string }[]>(`SELECT task_id, config_id FROM ${T} WHERE id IN (?) AND state = 'dead' FOR UPDATE`, [ids])
      await query(
        `UPDATE ${T} SET state = 'pending', attempts = 0, lease_until = NULL, leased_by = NULL, due_at = ${NOW}, updated_at = ${NOW} WHERE id IN (?) AND state = 'dead'`,
        [ids],
      )
      return rows.map((row) => ({ taskId: row.task_id, configId: row.config_id }))
    })
  }

  /** BIGINT columns (times in ms, counts) as numbers, whatever the pool's own options. */
  #query<R>(sql: string, values: unknown[] = []): Promise<R> {
    return this.#pool.query({ sql, bigIntAsNumber: true }, values)
  }
}
