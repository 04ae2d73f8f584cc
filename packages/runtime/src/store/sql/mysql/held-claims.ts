/**
 * MysqlStore's claims of new tasks, held as PostgresStore's are (postgres/held-inserts.ts): the
 * claims of one turn inserted in a transaction left open while the claimed runs' first turns last,
 * their tasks inserted and committed with them. HeldInserts speaks to a pg client; this gives it a
 * connection of the store's pool in pg's terms. MySQL keeps a transaction going past a failed
 * statement, where PostgreSQL aborts it, so COMMIT waits for the statements before it and rolls
 * back instead (answering as PostgreSQL does, `ROLLBACK`) when one failed; BEGIN is autocommit off,
 * so a deadlock's rollback leaves no statement after it committing on its own.
 * @module
 */
import type { PgClient, PgPool, QueryConfig, QueryResult } from '../postgres/executor.js'
import { HeldInserts } from '../postgres/held-inserts.js'
import type { Sql } from '../sql.js'
import { isMysqlConnectionLoss } from './connection-loss.js'
import { sent, type MysqlConnection, type MysqlExecutor } from './executor.js'

class HeldConnection implements PgClient {
  readonly #connection: MysqlConnection
  /** This transaction's statements, settled: COMMIT waits for them. */
  #sent: Promise<boolean>[] = []

  constructor(connection: MysqlConnection) {
    this.#connection = connection
  }

  async query(config: QueryConfig): Promise<QueryResult> {
    if (config.text === 'BEGIN') {
      this.#sent = []
      return this.#send('SET autocommit = 0', [])
    }
    if (config.text !== 'COMMIT' && config.text !== 'ROLLBACK') return this.#send(config.text, config.values)
    const failed = (await Promise.all(this.#sent)).includes(false)
    const end = config.text === 'COMMIT' && !failed ? 'COMMIT' : 'ROLLBACK'
    await Promise.all([this.#connection.query(end), this.#connection.query('SET autocommit = 1')])
    return { rows: [], rowCount: 0, command: end } as QueryResult
  }

  #send(text: string, values: unknown[]): Promise<QueryResult> {
    const answered = this.#connection
      .query(text, values)
      .then((answer) => (Array.isArray(answer) ? { rows: answer, rowCount: answer.length } : { rows: [], rowCount: Number(answer.affectedRows) }))
    this.#sent.push(
      answered.then(
        () => true,
        () => false,
      ),
    )
    return answered
  }

  release(destroy?: Error | boolean): void {
    if (destroy) this.#connection.destroy()
    else void this.#connection.release()
  }
}

/** Claims held on `executor`'s pool. */
export function heldClaims(executor: MysqlExecutor): HeldInserts<Sql> {
  const pool: PgPool = {
    connect: async () => new HeldConnection(await executor.connection()),
    query: () => Promise.reject(new Error('held claims take a connection of their own')),
    end: async () => {},
  }
  return new HeldInserts<Sql>(pool, isMysqlConnectionLoss, (statement) => sent(statement))
}
