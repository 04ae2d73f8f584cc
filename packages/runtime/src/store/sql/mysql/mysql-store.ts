/**
 * PrismaStore's logic and SQL on a `mariadb` connector pool of the store's own, to the app's
 * MySQL 8 or MariaDB database: the same tables (prisma/a2a.prisma), rows either store (or the
 * app's Prisma models) can read. The connector is an optional peer dependency (every MySQL app
 * already has it, under @prisma/adapter-mariadb), loaded only when a MysqlStore is made.
 *
 * Across replicas it does what PostgresStore does: a new task and its messageId are claimed by
 * unique keys (the task id is made from the message), versions guard every write, leases and the
 * sweep settle the runs of a stopped replica, retention trims in the database. Writes of one
 * turn share a commit (executor.ts). Other replicas hear writes through the change feed
 * (change-feed.ts), polling the kept events every 25 ms, as MySQL has no LISTEN/NOTIFY.
 * @module
 */
import { MysqlExecutor, utcDatetimes, type MysqlPool } from './executor.js'
import { MysqlChangeFeed } from './change-feed.js'
import { heldClaims } from './held-claims.js'
import { tracedExecutor } from '../traced-executor.js'
import { DEFAULT_POOL_SIZE, throttledLog } from '../postgres/pool.js'
import { sql, join, type Sql } from '../sql.js'
import { GROUPED, SQL_CAPABILITIES, SqlStore } from '../sql-store.js'
import { assertSchema, foundColumns, POSTGRES_STORE_SCHEMA, SchemaCheckedExecutor } from '../schema-check.js'
import * as statements from '../statements.js'
import { EVENT_KEEP_MS } from '../postgres/notifications.js'
import type { NewTaskClaim, StoredEvent, TaskChanges, TaskRecord } from '../../store.js'
import { toRecord, type TaskRow } from '../rows.js'
import { TickBatch } from '../tick-batch.js'
import type { StreamResponse } from '../../../wire/types.js'
import { encodeJson } from '../../../wire/json-safe.js'
import { MysqlCounters } from './counters.js'
import { type PoolEvents, unreachable } from './pool-errors.js'
import { mariadbPool } from './mariadb-pool.js'
import { keepLanded, LANDED, outboxedColumn, outboxExists, outboxInsert, outboxTable } from './outbox-rows.js'
import { MYSQL } from '../dialect.js'
import type { CapabilityName } from '../../capabilities.js'

export interface MysqlStoreOptions {
  /** The most connections the store's pool opens; default 10. */
  max?: number
  /** Hears every connection that died (default: a line on stderr, at most one per 10 s); the store recovers by itself. */
  onConnectionError?: (error: Error) => void
  /** Store every new task before its run starts instead of claiming its message id (as PostgresStoreOptions.insertBeforeRun). Default false. */
  insertBeforeRun?: boolean
}

/** Events the sweep deletes at most per sweep. */
const PRUNE_BATCH = 20_000

/**
 * The events of an update, kept in A2ATaskEvent right after it in its transaction, when it changed
 * the row (`keepLanded`: the update's count), stamped by the database's clock (the change feed
 * reads by it): the last under the version it made, each earlier one under the one before.
 */
const keptEvents = (change: statements.TaskUpdate): Sql => {
  const made = change.expectedVersion + change.versions
  const rows = change.events.map((event, i) => sql`SELECT ${made - change.events.length + 1 + i} AS "version", ${encodeJson(event, 'event')} AS "event"`)
  return sql`INSERT INTO "A2ATaskEvent" ("taskId", "version", "owner", "event", "createdAt")
      SELECT t."id", e."version", t."owner", e."event", UTC_TIMESTAMP(3) FROM "A2ATask" t, (${join(rows, ' UNION ALL ')}) e
      WHERE t."id" = ${change.id} AND t."version" = ${made} AND ${LANDED}
      ON DUPLICATE KEY UPDATE "owner" = VALUES("owner"), "event" = VALUES("event"), "createdAt" = VALUES("createdAt")`
}

/** The new task's message-index rows, when the insert before it stored the task. */
const indexIfInserted = (record: TaskRecord): Sql => {
  const ids = [...new Set(record.messageIds)].map((id) => sql`SELECT ${id} AS "messageId"`)
  return sql`INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId")
    SELECT ${record.owner}, m."messageId", ${record.id} FROM (${join(ids, ' UNION ALL ')}) m WHERE ROW_COUNT() > 0`
}

export class MysqlStore extends SqlStore {
  readonly #pool: MysqlPool
  readonly #url: string
  readonly #executor: MysqlExecutor
  readonly #checked: SchemaCheckedExecutor
  /** A SQL store's, and what replicas sharing a database need (claims unless insertBeforeRun); no job rows, which are PostgreSQL's (pg-boss). */
  override readonly capabilities: readonly CapabilityName[]
  /** Limits count in the A2ALimitEntry table, so every replica sees the same counts. */
  readonly counters: MysqlCounters
  /** Tasks by id, the reads of one turn of the event loop in one statement (GetTask, and the read a run starts with). */
  readonly #tasks: TickBatch<string, TaskRow>
  /** Every replica's task writes with events, read from A2ATaskEvent every 25 ms while the exchange listens. */
  readonly notifications: MysqlChangeFeed
  /** The push outbox table task writes also fill (queuePushOutbox), once one has started here. */
  #outbox: string | undefined

  /** `url`: the app's `mysql://` URL, the one its Prisma adapter opens. */
  constructor(url: string, options: MysqlStoreOptions = {}) {
    const onLost = options.onConnectionError ?? throttledLog('a MySQL connection of the task store was lost')
    const { pool } = mariadbPool<MysqlPool & PoolEvents>(
      'MysqlStore',
      { url },
      {
        connectionLimit: options.max ?? DEFAULT_POOL_SIZE,
        // Prisma's adapter keeps DATETIME in UTC: every Date read and bound is UTC, whatever the process's TZ (the statements stamp with UTC_TIMESTAMP).
        typeCast: utcDatetimes,
        bigIntAsNumber: true,
        insertIdAsNumber: true,
      },
      onLost,
    )
    const executor = new MysqlExecutor(pool)
    const checked = new SchemaCheckedExecutor(executor, async () => assertSchema('MysqlStore', POSTGRES_STORE_SCHEMA, await foundColumns(executor, POSTGRES_STORE_SCHEMA)))
    super(tracedExecutor(checked, 'mysql'))
    this.#pool = pool
    this.#url = url
    this.#executor = executor
    this.#checked = checked
    this.counters = new MysqlCounters(this.db)
    const shared: CapabilityName[] = ['acceptOnce', 'notifications', 'keptEvents', 'pushOutbox', 'counters']
    this.capabilities = [...SQL_CAPABILITIES, ...shared, ...(options.insertBeforeRun ? [] : ['claims' as const])]
    this.#tasks = new TickBatch(
      (id) => id,
      async (ids) => new Map((await this.db.query<TaskRow>(sql`SELECT * FROM "A2ATask" WHERE "id" IN (${join(ids)})`, { idempotent: true })).map((row) => [row.id, row])),
    )
    const held = heldClaims(executor)
    this.claimNewTask = options.insertBeforeRun
      ? undefined
      : (record, unlessAccepted) => this.claimHeld(record, unlessAccepted, (claim, undo) => checked.afterCheck(() => held.claim(claim, undo)))
    this.notifications = new MysqlChangeFeed((statement) => this.db.query(statement, { idempotent: true }), onLost)
  }

  /**
   * The claim is the task's message-index row, in a transaction held open while the run's first
   * turn lasts (held-claims.ts); the insert is the task row, committed with it: a quick run's task
   * is written once, in its final state. Absent with `insertBeforeRun`.
   */
  readonly claimNewTask: ((record: TaskRecord, unlessAccepted: boolean) => Promise<NewTaskClaim | undefined>) | undefined

  override async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    const written = await super.update(id, expectedVersion, changes)
    // Once committed: a note never tells of a write before it can be read.
    if (written) this.notifications.committed(id, written.version)
    return written
  }

  /** The update, then its events kept and, once an outbox started here, its outbox rows, in its transaction. */
  protected override updateStatement(change: statements.TaskUpdate): Sql {
    const update = super.updateStatement(change)
    if (!change.events.length) return update
    const outbox = this.#outbox
    if (!outbox) return this.#executor.follow(update, [keepLanded, keptEvents(change)])
    return this.#executor.follow(update, [keepLanded, keptEvents(change), outboxInsert(outbox, change)], outboxedColumn(outbox, change))
  }

  async queuePushOutbox(table: string): Promise<boolean> {
    const [found] = await this.db.query<{ found: number }>(outboxExists(outboxTable(table)), { idempotent: true })
    if (Number(found?.found)) this.#outbox = table
    return Boolean(Number(found?.found))
  }

  /**
   * The message-id check is the insert's own condition, the index rows follow only when it
   * inserted, and the count of those tells: one transaction, one round trip. Two replicas given
   * the same message at once both pass the check, and the task id (made from the message) lets
   * one in, as for {@link create}.
   */
  async createUnlessAccepted(record: TaskRecord): Promise<boolean> {
    if (record.messageIds.length === 0) return this.create(record).then(() => true)
    const taskJson = encodeJson(record.task, 'task')
    const insert = [statements.insertTaskUnlessAccepted(MYSQL, record, taskJson), indexIfInserted(record), sql`SELECT ROW_COUNT() AS "indexed"`]
    return this.inserting(record, taskJson, async () => {
      const [counted] = await this.db.batchThenRead<{ indexed: number }>(insert, GROUPED)
      return Number(counted?.indexed ?? 0) > 0
    })
  }

  override async get(id: string): Promise<TaskRecord | undefined> {
    const row = await this.#tasks.get(id)
    return row && toRecord(row)
  }

  async eventsSince(taskId: string, version: number): Promise<StoredEvent[]> {
    const rows = await this.db.query<{ version: number; event: StreamResponse | string }>(
      sql`SELECT "version", "event" FROM "A2ATaskEvent" WHERE "taskId" = ${taskId} AND "version" > ${version} ORDER BY "version"`,
      { idempotent: true },
    )
    return rows.map((row) => ({ version: row.version, response: typeof row.event === 'string' ? JSON.parse(row.event) : row.event }))
  }

  /** The sweep also deletes the events past their time, so a quiet agent keeps none for long. */
  override async expiredRuns(now: number, limit: number): Promise<TaskRecord[]> {
    await this.db.execute(sql`DELETE FROM "A2ATaskEvent" WHERE "createdAt" < ${new Date(now - EVENT_KEEP_MS)} LIMIT ${PRUNE_BATCH}`, { idempotent: true })
    const rows = await this.db.query<TaskRow>(statements.selectExpiredRuns(now, limit), { idempotent: true })
    return rows.map(toRecord)
  }

  /**
   * Resolves once the database has every table and column the store uses; rejects with a
   * TaskStoreSchemaError naming what is missing, or naming the URL (without its password) when the
   * store cannot connect.
   */
  ready(): Promise<void> {
    return this.#checked.ready().catch(unreachable('MysqlStore', this.#url))
  }

  /** Stops the change feed and closes the store's pool; the app's Prisma client is not touched. */
  async close(): Promise<void> {
    this.notifications.close()
    await this.#pool.end()
  }
}
