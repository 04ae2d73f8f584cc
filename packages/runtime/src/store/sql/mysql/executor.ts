/**
 * The store's statements on a pool of the `mariadb` connector (MySQL 8 and MariaDB alike), the
 * store's own, with no Prisma client in between: statements.ts's SQL in MySQL's dialect
 * (../dialect.ts: backticks), `?` placeholders. The connector pipelines: statements given to one connection
 * without awaiting go out together and are answered in order, so a transaction's statements cost
 * one round trip, plus one for its COMMIT.
 *
 * MySQL has no UPDATE … RETURNING: such a statement (statements.returningParts) is sent as the
 * update, then the read of the row it wrote, in one transaction; the read counts only when the
 * update changed a row. A write may also carry follow-ups ({@link MysqlExecutor.follow}, the kept
 * events and outbox rows) that run right after it in its transaction, guarded by its row count.
 *
 * Group commit: the writes marked `group` that arrive in one turn of the event loop (or while the
 * group transactions under way hold every slot) go in one transaction on one connection
 * (autocommit off, their statements pipelined), and each is answered once it committed. Should any statement fail, the lot rolls back (autocommit off: a deadlock's
 * implicit rollback leaves the later statements in a new transaction, which rolls back too) and
 * each write runs again alone for its own answer.
 *
 * Values are written and read as @prisma/adapter-mariadb does, so PrismaStore and the app's
 * Prisma models read these rows as their own: DATETIME(3) in UTC (the session's time zone is
 * UTC), JSON parsed, BOOLEAN as 0 or 1, counts as numbers.
 * @module
 */
import type { Executor, Run, Step, Steps } from '../executor.js'
import type { Sql } from '../sql.js'
import { returningParts } from '../statements.js'
import { MYSQL } from '../dialect.js'
import { isMysqlConnectionLoss, POOL_TIMEOUT } from './connection-loss.js'
import { inTransaction, onConnection, overDeadlocks } from './transaction.js'

type Row = Record<string, unknown>

/** What a statement answers: rows of a SELECT, or an OK packet. */
type Answer = Row[] | { affectedRows: number }

/** The part of a `mariadb` connection the executor uses, typed here so the runtime needs no mariadb types. */
export interface MysqlConnection {
  /** The server's id of the connection: a new one has a new id. */
  readonly threadId: number | null
  query(sql: string, values?: unknown[]): Promise<Answer>
  release(): Promise<void>
  destroy(): void
}

/** The part of a `mariadb` pool the executor uses. */
export interface MysqlPool {
  getConnection(): Promise<MysqlConnection>
  end(): Promise<void>
}

/** A statement as the connector takes it. */
interface Sent {
  text: string
  values: unknown[]
}

export const sent = (statement: Sql): Sent => {
  const mysql = MYSQL.render(statement)
  return { text: mysql.sql, values: mysql.values.map(toParam) }
}

/**
 * A bound value as Prisma's adapter binds it: a Date as its UTC wall time. The connector would
 * write the process's local time (its `timezone` option sets only the session's zone).
 */
const toParam = (value: unknown): unknown => (value instanceof Date ? value.toISOString().slice(0, 23).replace('T', ' ') : value)

/** The connector's `typeCast`: DATETIME read as UTC wall time, whatever the process's TZ; the rest as the connector reads it. */
export function utcDatetimes(column: { type: string; string(): string | null }, next: () => unknown): unknown {
  if (column.type !== 'DATETIME' && column.type !== 'TIMESTAMP') return next()
  const text = column.string()
  return text === null ? null : new Date(`${text.replace(' ', 'T')}Z`)
}

/**
 * One caller's statements, answered together: `parts` in order, and `answer` making the caller's
 * result from theirs (the last rows, a change count, the read of an update's row).
 */
interface Unit {
  parts: Sent[]
  answer(answers: Answer[]): unknown
}

interface Grouped {
  unit: Unit
  resolve(value: unknown): void
  reject(error: unknown): void
}

/**
 * Every connection's isolation: the writes are guarded by versions and unique keys, not by
 * snapshots, and REPEATABLE READ's gap locks deadlocked a trim's deletes with other sends' inserts.
 */
const READ_COMMITTED = 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'

/** Connection ids remembered as set up, at most; past it the set starts over (setting it again is harmless). */
const REMEMBERED_CONNECTIONS = 10_000

/** Writes per group transaction; a larger turn's writes go in several, in parallel. */
const MAX_GROUP = 64

/**
 * Group transactions at once. Each commit waits for InnoDB's log flush (~5 ms on this machine's
 * disk); writes that arrive meanwhile wait for a slot and go together in the next group, so the
 * flushes per write fall as the load grows. With a group per turn and no bound, each of ten
 * connections committed a write or two at a time: 0.7 commits per SendMessage.
 */
const MAX_COMMITTING = 8

const changed = (answer: Answer | undefined): number => (answer && !Array.isArray(answer) ? Number(answer.affectedRows) : 0)
const rows = (answer: Answer | undefined): Row[] => (Array.isArray(answer) ? answer : [])

export class MysqlExecutor implements Executor {
  readonly dialect = MYSQL
  readonly #pool: MysqlPool
  readonly #follows = new WeakMap<Sql, { after: Sql[]; columns: Sql | undefined }>()
  /** Connections (by server id) whose session is READ COMMITTED already. */
  readonly #readCommitted = new Set<number>()
  #waiting: Grouped[] = []
  /** Group transactions under way, at most {@link MAX_COMMITTING}. */
  #committing = 0
  #flushing = false

  constructor(pool: MysqlPool) {
    this.#pool = pool
  }

  /**
   * Statements to run in `write`'s transaction right after it, each only when it changed a row
   * (the first keeps its ROW_COUNT() for the others: outbox-rows.ts): the events an update keeps,
   * its outbox rows. `columns`: more columns of the read of the row it wrote. Returns `write`.
   */
  follow(write: Sql, after: Sql[], columns?: Sql): Sql {
    if (after.length) this.#follows.set(write, { after, columns })
    return write
  }

  lostConnection(error: unknown): boolean {
    return isMysqlConnectionLoss(error)
  }

  query<R>(statement: Sql, run: Run = {}): Promise<R[]> {
    return this.#run(this.#unit(statement, false), run) as Promise<R[]>
  }

  execute(statement: Sql, run: Run = {}): Promise<number> {
    return this.#run(this.#unit(statement, true), run) as Promise<number>
  }

  async batch(statements: readonly Sql[], run: Run = {}): Promise<void> {
    await this.batchThenRead(statements, run)
  }

  batchThenRead<R>(statements: readonly Sql[], run: Run = {}): Promise<R[]> {
    if (statements.length === 1) return this.query<R>(statements[0]!, run)
    return this.#run({ parts: statements.map(sent), answer: (answers) => rows(answers.at(-1)) }, run) as Promise<R[]>
  }

  transaction<R>(steps: () => Steps<R>): Promise<R> {
    return overDeadlocks(() => this.#transaction(steps))
  }

  async #transaction<R>(steps: () => Steps<R>): Promise<R> {
    return inTransaction(await this.connection(), async (connection) => {
      const it = steps()
      let next = it.next()
      while (!next.done) next = it.next(await this.#step(connection, next.value))
      return next.value
    })
  }

  async #step(connection: MysqlConnection, step: Step): Promise<unknown> {
    const unit = 'query' in step ? this.#unit(step.query, false) : this.#unit(step.execute, true)
    return unit.answer(await Promise.all(unit.parts.map((part) => connection.query(part.text, part.values))))
  }

  /** The unit of one statement: an update with RETURNING as its update, follow-ups and read. */
  #unit(statement: Sql, count: boolean): Unit {
    const follow = this.#follows.get(statement)
    const parts = returningParts(statement, follow?.columns)
    if (!parts) return { parts: [sent(statement)], answer: ([answer]) => (count ? changed(answer) : rows(answer)) }
    const follows = (follow?.after ?? []).map(sent)
    return {
      parts: [sent(parts.update), ...follows, sent(parts.read)],
      // The read finds the version the update made; when the update changed nothing, that row is another writer's.
      answer: (answers) => (changed(answers[0]) === 0 ? (count ? 0 : []) : count ? changed(answers[0]) : rows(answers.at(-1))),
    }
  }

  async #run(unit: Unit, run: Run): Promise<unknown> {
    if (run.group) return new Promise((resolve, reject) => this.#enqueue({ unit, resolve, reject }))
    try {
      return await this.#alone(unit)
    } catch (error) {
      // A pool that timed out tried to connect all along: another wait would only double the caller's.
      if (!run.idempotent || !isMysqlConnectionLoss(error) || (error as { errno?: unknown }).errno === POOL_TIMEOUT) throw error
      // The pool has dropped the dead connection; this takes a live one or opens a new one.
      return this.#alone(unit)
    }
  }

  /** One statement on its own commits on its own; more go in one transaction. Sent again when InnoDB undid it to end a deadlock. */
  #alone(unit: Unit): Promise<unknown> {
    const [only, ...more] = unit.parts
    if (more.length === 0) return overDeadlocks(() => this.#onConnection(async (connection) => unit.answer([await connection.query(only!.text, only!.values)])))
    return overDeadlocks(() => this.#onConnection(async (connection) => unit.answer((await this.#inOneTransaction(connection, [unit]))[0]!)))
  }

  /**
   * The units' statements in one transaction, pipelined (one round trip), then COMMIT, or
   * ROLLBACK and the first failure when any failed. Each unit's answers, in order.
   */
  async #inOneTransaction(connection: MysqlConnection, units: readonly Unit[]): Promise<Answer[][]> {
    const parts = units.flatMap((unit) => unit.parts)
    const settled = await Promise.allSettled([connection.query('SET autocommit = 0'), ...parts.map((part) => connection.query(part.text, part.values))])
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
    await Promise.all([connection.query(failed ? 'ROLLBACK' : 'COMMIT'), connection.query('SET autocommit = 1')])
    if (failed) throw failed.reason
    const answers = (settled.slice(1) as PromiseFulfilledResult<Answer>[]).map((outcome) => outcome.value)
    let at = 0
    return units.map((unit) => answers.slice(at, (at += unit.parts.length)))
  }

  /** `work` on a connection of the pool, outside a transaction of its own (one dead is destroyed, not reused). */
  async #onConnection<R>(work: (connection: MysqlConnection) => Promise<R>): Promise<R> {
    return onConnection(await this.connection(), work, false)
  }

  /** A connection of the pool, its session READ COMMITTED: the caller releases it, or destroys it once it died. */
  async connection(): Promise<MysqlConnection> {
    const connection = await this.#pool.getConnection()
    const id = connection.threadId
    if (id !== null && !this.#readCommitted.has(id)) {
      if (this.#readCommitted.size >= REMEMBERED_CONNECTIONS) this.#readCommitted.clear()
      this.#readCommitted.add(id)
      // Pipelined ahead of the work; should it fail, so does the work (the connection died), and the next connection sets it.
      void connection.query(READ_COMMITTED).catch(() => this.#readCommitted.delete(id))
    }
    return connection
  }

  #enqueue(grouped: Grouped): void {
    this.#waiting.push(grouped)
    this.#schedule()
  }

  /** A flush at the end of this turn, unless one is due or every group slot is taken (a commit ending flushes then). */
  #schedule(): void {
    if (this.#flushing || this.#committing >= MAX_COMMITTING || this.#waiting.length === 0) return
    this.#flushing = true
    setImmediate(() => {
      this.#flushing = false
      this.#flush()
    })
  }

  #flush(): void {
    while (this.#committing < MAX_COMMITTING && this.#waiting.length > 0) {
      const group = this.#waiting.splice(0, MAX_GROUP)
      this.#committing++
      void this.#commit(group).finally(() => {
        this.#committing--
        this.#schedule()
      })
    }
  }

  async #commit(group: Grouped[]): Promise<void> {
    if (group.length > 1) {
      try {
        const answers = await this.#onConnection((connection) =>
          this.#inOneTransaction(
            connection,
            group.map((grouped) => grouped.unit),
          ),
        )
        group.forEach((grouped, i) => settle(grouped, () => grouped.unit.answer(answers[i]!)))
        return
      } catch (error) {
        // A lost connection fails every write of the group: each caller reads back what landed.
        if (isMysqlConnectionLoss(error)) {
          for (const grouped of group) grouped.reject(error)
          return
        }
        // A statement failed, so nothing was committed: each again alone, for its own answer.
      }
    }
    await Promise.all(group.map((grouped) => this.#alone(grouped.unit).then(grouped.resolve, grouped.reject)))
  }
}

function settle(grouped: Grouped, answer: () => unknown): void {
  try {
    grouped.resolve(answer())
  } catch (error) {
    grouped.reject(error)
  }
}
