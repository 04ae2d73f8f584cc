/**
 * The store's statements on a node-postgres pool of the store's own: statements.ts's SQL with
 * `$n` placeholders, each sent as a named prepared statement (parsed and planned once per
 * connection, then only bound and executed), with no Prisma client in between.
 *
 * Values are written and read as Prisma's PostgreSQL adapter does, so PrismaStore and the app's
 * Prisma models read these rows as their own: DateTime columns are `timestamp(3)` without a time
 * zone holding UTC, bound as ISO text and read back as UTC whatever the process's TZ.
 *
 * Connection loss. A connection whose backend is terminated (a failover, a restart, an operator's
 * pg_terminate_backend) emits `error`; the pool is guarded (guardPool: it and every connection
 * listen for their whole life), so no such event takes the process down, and the pool replaces
 * the dead connection at the next query. A statement that failed because its
 * connection died is retried once on a fresh connection when the caller marked it safe to repeat
 * (reads, idempotent writes); other failures are the caller's to judge (see {@link isConnectionLoss}).
 * @module
 */
import { createHash } from 'node:crypto'
import type { Executor, Run, Step, Steps } from '../executor.js'
import { POSTGRES } from '../dialect.js'
import type { Sql } from '../sql.js'
import { GroupCommit, inOneTrip } from './group-commit.js'
import { HeldInserts, type HeldClaim } from './held-inserts.js'

type Row = Record<string, unknown>

export interface QueryConfig {
  name?: string
  text: string
  values: unknown[]
}

export interface QueryResult {
  rows: Row[]
  rowCount: number | null
}

/** The part of a pg client the executor uses, typed here so the runtime needs no pg types. */
export interface PgClient {
  query(config: QueryConfig): Promise<QueryResult>
  /** Back to the pool; with an error (or true) the connection is destroyed instead. */
  release(destroy?: Error | boolean): void
}

/** The part of a pg Pool the executor uses. */
export interface PgPool {
  query(config: QueryConfig): Promise<QueryResult>
  connect(): Promise<PgClient>
  end(): Promise<void>
}

/** Distinct SQL texts sent as named statements; `IN (…)` lists of every length could be many. */
const NAMED_STATEMENTS = 1000

/**
 * SQLSTATE classes and driver messages of a connection that died under a statement: the server
 * going away (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now), a connection
 * refused for now (53300 too many connections, as Prisma's TooManyConnections below), class 08
 * (connection exceptions), a database closed to connections for now (ALLOW_CONNECTIONS false:
 * 55000, told by its message, as that code has other meanings), and node-postgres's and Node's own
 * words for a dropped socket.
 */
const LOST_CODES = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN'])
const LOST_MESSAGES =
  /Connection terminated|connection is closed|Client has encountered a connection error|terminating connection|timeout exceeded when trying to connect|Client was closed|Can't reach database server|is not currently accepting connections/i

/** Prisma's driver-adapter error kinds for the same (@prisma/adapter-pg maps pg's errors to them). */
const LOST_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections'])

const lostCode = (code: unknown): boolean => typeof code === 'string' && (LOST_CODES.has(code) || code.startsWith('08'))

/**
 * True when `error` says the statement's connection died (or none could be made), not that the SQL
 * failed: pg's errors, and Prisma's wrapping of them (`meta.driverAdapterError.cause`, or the
 * adapter's own DriverAdapterError, whose `cause` is the plain `{ kind }` object).
 */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if (lostCode((error as { code?: unknown }).code) || LOST_MESSAGES.test(error.message)) return true
  type Adapted = { kind?: unknown; code?: unknown }
  const adapted = (error as { meta?: { driverAdapterError?: { cause?: Adapted } } }).meta?.driverAdapterError?.cause
  if (adapted && lostKind(adapted)) return true
  const cause = error.cause as Adapted | undefined
  if (cause !== null && typeof cause === 'object' && !(cause instanceof Error)) return lostKind(cause)
  return cause !== undefined && isConnectionLoss(cause)
}

const lostKind = (adapted: { kind?: unknown; code?: unknown }): boolean => LOST_KINDS.has(String(adapted.kind)) || lostCode(adapted.code)

/** A bound value as Prisma's adapter binds it: dates as UTC ISO text, which `timestamp(3)` takes without shifting. */
const toParam = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value)

export class PgExecutor implements Executor {
  readonly dialect = POSTGRES
  readonly #pool: PgPool
  readonly #names = new Map<string, string>()
  readonly #grouped: GroupCommit
  readonly #held: HeldInserts<Sql>

  /** `pool` must be guarded (see guardPool in pool.ts): it and its connections handle `error`. */
  constructor(pool: PgPool) {
    this.#pool = pool
    this.#grouped = new GroupCommit(pool, isConnectionLoss)
    this.#held = new HeldInserts(pool, isConnectionLoss, (statement: Sql) => this.#config(statement))
  }

  /**
   * Sends `claim` in this turn's claiming transaction (postgres/held-inserts.ts): undefined when it
   * inserted no row, else the claim, to insert in the same transaction or release (`undo`).
   */
  claim(claim: Sql, undo: Sql): Promise<HeldClaim<Sql> | undefined> {
    return this.#held.claim(claim, undo)
  }

  lostConnection(error: unknown): boolean {
    return isConnectionLoss(error)
  }

  async query<R>(statement: Sql, run: Run = {}): Promise<R[]> {
    return (await this.#send(statement, run)).rows as R[]
  }

  async execute(statement: Sql, run: Run = {}): Promise<number> {
    return (await this.#send(statement, run)).rowCount ?? 0
  }

  async batch(statements: readonly Sql[], run: Run = {}): Promise<void> {
    await this.batchThenRead(statements, run)
  }

  async batchThenRead<Row>(statements: readonly Sql[], run: Run = {}): Promise<Row[]> {
    // One statement is its own transaction: no BEGIN and COMMIT.
    if (statements.length === 1) return (await this.#send(statements[0]!, run)).rows as Row[]
    const configs = statements.map((statement) => this.#config(statement))
    try {
      return (await this.#pipelined(configs)) as Row[]
    } catch (error) {
      if (!run.idempotent || !isConnectionLoss(error)) throw error
      return (await this.#pipelined(configs)) as Row[]
    }
  }

  transaction<R>(steps: () => Steps<R>): Promise<R> {
    return this.#inTransaction(async (client) => {
      const it = steps()
      let next = it.next()
      while (!next.done) next = it.next(await this.#step(client, next.value))
      return next.value
    })
  }

  async #step(client: PgClient, step: Step): Promise<unknown> {
    const result = await client.query(this.#config('query' in step ? step.query : step.execute))
    return 'query' in step ? result.rows : (result.rowCount ?? 0)
  }

  async #send(statement: Sql, run: Run): Promise<QueryResult> {
    const config = this.#config(statement)
    if (run.group) return this.#grouped.send(config)
    try {
      return await this.#pool.query(config)
    } catch (error) {
      if (!run.idempotent || !isConnectionLoss(error)) throw error
      // The pool has dropped the dead connection; this takes a live one or opens a new one.
      return this.#pool.query(config)
    }
  }

  /** The statements in one transaction and one round trip (inOneTrip); the last one's rows. */
  async #pipelined(configs: QueryConfig[]): Promise<Row[]> {
    const client = await this.#pool.connect()
    let failure: unknown
    try {
      const outcome = await inOneTrip(client, configs)
      if ('failed' in outcome) throw (failure = outcome.failed)
      return outcome.results.at(-1)!.rows
    } finally {
      // A connection that died under the transaction is in no state to serve anyone: destroy it.
      client.release(failure !== undefined && isConnectionLoss(failure) ? (failure as Error) : undefined)
    }
  }

  async #inTransaction<R>(work: (client: PgClient) => Promise<R>): Promise<R> {
    const client = await this.#pool.connect()
    let broken: unknown
    try {
      await client.query({ text: 'BEGIN', values: [] })
      const result = await work(client)
      await client.query({ text: 'COMMIT', values: [] })
      return result
    } catch (error) {
      broken = error
      await client.query({ text: 'ROLLBACK', values: [] }).catch((rollback: unknown) => (broken = rollback))
      throw error
    } finally {
      // A connection whose rollback failed is in no state to serve anyone: destroy it.
      client.release(broken !== undefined && isConnectionLoss(broken) ? (broken as Error) : undefined)
    }
  }

  #config(statement: Sql): QueryConfig {
    const text = statement.text
    const values = statement.values.map(toParam)
    let name = this.#names.get(text)
    if (name === undefined && this.#names.size < NAMED_STATEMENTS) {
      name = `a2a_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
      this.#names.set(text, name)
    }
    return name === undefined ? { text, values } : { name, text, values }
  }
}
