/**
 * Work on one connection of a mariadb pool, and transactions on it: what MysqlStore's executor,
 * MysqlJobQueue and MysqlPushOutbox share. A failure rolls the transaction back; a connection that
 * died (or could not roll back) is destroyed, so the pool never hands it to the next caller.
 * @module
 */
import { isMysqlConnectionLoss } from './connection-loss.js'

/** The part of a mariadb pool connection these helpers use. */
export interface PooledConnection {
  query(sql: string): Promise<unknown>
  release(): Promise<void>
  destroy(): void
}

/** A statement in a {@link readCommitted} transaction: BIGINT columns (times in ms, counts) come back as numbers. */
export type Query = <R>(sql: string, values?: unknown[]) => Promise<R>

/** The part of a mariadb pool {@link readCommitted} uses. */
export interface QueryPool {
  getConnection(): Promise<PooledConnection & { query(options: { sql: string; bigIntAsNumber: boolean }, values: unknown[]): Promise<any> }>
}

/** `work` on `connection`, then the connection back to its pool, or destroyed once it died. After a failure, ROLLBACK first when `rollback`. */
export async function onConnection<C extends PooledConnection, R>(connection: C, work: (connection: C) => Promise<R>, rollback: boolean): Promise<R> {
  let broken = false
  try {
    return await work(connection)
  } catch (error) {
    broken = isMysqlConnectionLoss(error)
    if (rollback && !broken) await connection.query('ROLLBACK').catch(() => (broken = true))
    throw error
  } finally {
    if (broken) connection.destroy()
    else await connection.release()
  }
}

/**
 * `work` in one transaction on `connection`: COMMIT once it resolves, ROLLBACK when anything
 * failed. `begin` is sent as it is, pipelined ahead of the work.
 */
export function inTransaction<C extends PooledConnection, R>(connection: C, work: (connection: C) => Promise<R>, begin: readonly string[] = ['START TRANSACTION']): Promise<R> {
  return onConnection(
    connection,
    async () => {
      await Promise.all(begin.map((statement) => connection.query(statement)))
      const result = await work(connection)
      await connection.query('COMMIT')
      return result
    },
    true,
  )
}

/**
 * `work` in one READ COMMITTED transaction on a connection of `pool`, whatever the session's
 * level: a scan then locks only the rows it returns. Its statements may be pipelined (sent together, answered in order).
 */
export async function readCommitted<R>(pool: QueryPool, work: (query: Query) => Promise<R>): Promise<R> {
  const connection = await pool.getConnection()
  return inTransaction(connection, () => work((sql, values = []) => connection.query({ sql, bigIntAsNumber: true }, values)), [
    'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
    'START TRANSACTION',
  ])
}

const ER_LOCK_DEADLOCK = 1213
const DEADLOCK_ATTEMPTS = 3

/** InnoDB rolled the whole transaction back to end a deadlock: nothing of it stays, so it may be sent again. */
const deadlocked = (error: unknown): boolean => (error as { errno?: unknown } | null)?.errno === ER_LOCK_DEADLOCK

/** `attempt`, sent again (up to three times in all) while InnoDB ends it as a deadlock's victim. */
export async function overDeadlocks<R>(attempt: () => Promise<R>): Promise<R> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (tries >= DEADLOCK_ATTEMPTS || !deadlocked(error)) throw error
    }
  }
}

/** Rows a {@link pruneRows} transaction deletes at most. */
const PRUNE_BATCH = 500

/**
 * Deletes the rows of `table` (keyed by `id`) that `old` (an SQL condition, with `values`) holds
 * for, e.g. done jobs past their keep, in batches, never locking another row. A DELETE ranging
 * over the condition's index locks the first row past the range as well, whichever isolation:
 * a row another process is settling at that moment, so the prune waited on it, and deadlocked
 * with it. Here the old rows are found by a read that locks nothing, then locked by key (on the
 * primary index only: a covering scan of the condition's index locked its entries first, and
 * deadlocked with a process updating one of those rows), checked again (one may have been revived
 * meanwhile, a dead push redelivered) and deleted by key.
 */
export async function pruneRows(pool: QueryPool, table: string, old: string, values: unknown[]): Promise<void> {
  for (;;) {
    const found = await overDeadlocks(() =>
      readCommitted(pool, async (query) => {
        const ids = (await query<Array<{ id: unknown }>>(`SELECT id FROM ${table} WHERE ${old} LIMIT ${PRUNE_BATCH}`, values)).map((row) => row.id)
        if (ids.length === 0) return 0
        const keys = ids.map(() => '?').join(', ')
        const locked = await query<Array<{ id: unknown; old: number }>>(`SELECT id, ${old} AS old FROM ${table} FORCE INDEX (PRIMARY) WHERE id IN (${keys}) FOR UPDATE`, [
          ...values,
          ...ids,
        ])
        const still = locked.filter((row) => row.old).map((row) => row.id)
        if (still.length > 0) await query(`DELETE FROM ${table} WHERE id IN (${still.map(() => '?').join(', ')})`, still)
        return ids.length
      }),
    )
    if (found < PRUNE_BATCH) return
  }
}
