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
