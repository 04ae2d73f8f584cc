/**
 * PrismaStore's logic and SQL on a node-postgres pool of the store's own, to the app's PostgreSQL
 * database: the same tables, rows either store (or the app's Prisma models) can read. pg is an
 * optional peer dependency (every PostgreSQL app already has it, under @prisma/adapter-pg),
 * loaded only when a PostgresStore is made, so apps on SQLite never load it.
 * @module
 */
import { PgExecutor, type PgPool } from './executor.js'
import { tracedExecutor } from '../traced-executor.js'
import { keepingEvents, LISTENER_NAME, PgTaskNotifications, pruneEvents, type PgListenClient } from './notifications.js'
import { PgReads } from './reads.js'
import { outboxExists, outboxRows, outboxTable } from './outbox-rows.js'
import { databaseIdentity, jobRowCte, jobSchema } from './job-rows.js'
import type { PgBossJobRow } from '../../job-row.js'
import { corkedSocket } from './corked-socket.js'
import { DEFAULT_POOL_SIZE, guardPool, loadPg, throttledLog } from './pool.js'
import { shaped, sql, type Sql } from '../sql.js'
import { POSTGRES } from '../dialect.js'
import { GROUPED, SQL_CAPABILITIES, SqlStore } from '../sql-store.js'
import type { CapabilityName } from '../../capabilities.js'
import { assertSchema, foundColumns, POSTGRES_STORE_SCHEMA, SchemaCheckedExecutor } from '../schema-check.js'
import { PgCounters } from './counters.js'
import * as statements from '../statements.js'
import type { Viewer } from '../../../core/principal.js'
import { compareNewestFirst } from '../../cursor.js'
import type { NewTaskClaim, StoredEvent, TaskChanges, TaskRecord } from '../../store.js'
import type { TaskRow } from '../rows.js'
import { toRecord } from '../rows.js'
import type { StreamResponse } from '../../../wire/types.js'
import { encodeJson } from '../../../wire/json-safe.js'

export interface PostgresStoreOptions {
  /** The most connections the store's pool opens; default 10 (see postgresPoolSize). */
  max?: number
  /** Hears every connection that died (default: a line on stderr, at most one per 10 s); the store recovers by itself. */
  onConnectionError?: (error: Error) => void
  /**
   * Store every new task before its run starts, as PrismaStore does, instead of claiming its
   * message id and inserting it once its run's first turn ends (capability claims): a process
   * that dies during that first turn then leaves the task, which the lease sweep settles FAILED,
   * and the same message sent again is answered with it rather than run again. Costs an update
   * per quick run (bench:stores: about 40% of the SendMessage rate without it). Default false.
   */
  insertBeforeRun?: boolean
}

/** `timestamp` (without time zone): Prisma keeps UTC there, so it is read as UTC whatever TZ says. */
const TIMESTAMP_OID = 1114

/**
 * Inserts the task (`insert`) and indexes its messages in one statement (a data-modifying CTE): one
 * round trip, atomic. A repeated id is dropped here, not by the database: `SELECT DISTINCT` built
 * a hash table per send (~30,000 of the backend's instructions per claim).
 */
const insertWithMessages = (insert: Sql, record: TaskRecord): Sql =>
  sql`WITH "created" AS (${insert} RETURNING "id")
    INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId")
    SELECT ${record.owner}, "messageId", "created"."id" FROM "created", unnest(${distinct(record.messageIds)}::text[]) AS "messageId"`

const distinct = (ids: readonly string[]): readonly string[] => (ids.length < 2 ? ids : [...new Set(ids)])

/**
 * The tier's settled tasks past its newest `keep` deleted with their message index rows, push
 * configs and kept events in one statement: one round trip where a select and a three-statement
 * transaction took six. Every table is joined to the doomed ids, a nested loop probing its task-id
 * index once per id: `= ANY(ARRAY(…))` let a plan kept from a young table scan the whole table,
 * dead rows and all, at every trim (A2ATask: 1343 buffers per trim after 5000 sends, growing until
 * a vacuum), and `IN (SELECT …)` planned a hash join over every row (postgres/plans.test.ts).
 * The events go too: the sweep prunes at most a batch of them per sweep, fewer than a busy agent
 * keeps in that time.
 */
export const trimSettledPast = (tier: Viewer, keep: number): Sql =>
  sql`WITH "doomed" AS (${statements.selectSettledPast(tier, keep)}),
    "messages" AS (DELETE FROM "A2ATaskMessage" m USING "doomed" d WHERE m."taskId" = d."id"),
    "configs" AS (DELETE FROM "A2APushConfig" c USING "doomed" d WHERE c."taskId" = d."id"),
    "events" AS (DELETE FROM "A2ATaskEvent" e USING "doomed" d WHERE e."taskId" = d."id")
    DELETE FROM "A2ATask" t USING "doomed" d WHERE t."id" = d."id" RETURNING t."id", t."statusTime"`

export class PostgresStore extends SqlStore {
  /** A SQL store's, and what replicas sharing a database need (claims unless insertBeforeRun). */
  override readonly capabilities: readonly CapabilityName[]
  readonly #pool: PgPool
  /** Limits count in the A2ALimitEntry table, so every replica sees the same counts. */
  readonly counters: PgCounters
  /** Every replica's task writes as they commit, on one LISTEN connection opened while the exchange listens. */
  readonly notifications: PgTaskNotifications
  /** The reads every request makes, batched per turn of the event loop. */
  readonly #reads: PgReads
  /** The push outbox table task writes also fill (queuePushOutbox), once one has started here. */
  #outbox: string | undefined
  readonly #checked: SchemaCheckedExecutor
  readonly #executor: PgExecutor

  /**
   * `url`: the app's `postgresql://` URL, the one its Prisma adapter opens. Tables outside
   * `public` need the schema on the search_path (`?options=-c%20search_path%3D<schema>`).
   */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new Error(`PostgresStore needs a postgresql:// URL, not ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//…@'))}`)
    }
    const pg = loadPg()
    const parseUtc = (value: string) => new Date(`${value.replace(' ', 'T')}Z`)
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? DEFAULT_POOL_SIZE,
      stream: corkedSocket,
      // A group commit's statements go out together, not each after the last one's answer (postgres/group-commit.ts).
      pipeline: true,
      types: { getTypeParser: (oid: number, format?: string) => (oid === TIMESTAMP_OID ? parseUtc : pg.types.getTypeParser(oid, format)) },
    })
    const onLost = options.onConnectionError ?? throttledLog('a PostgreSQL connection of the task store was lost')
    const executor = new PgExecutor(guardPool(pool, onLost) as unknown as PgPool)
    const checked = new SchemaCheckedExecutor(executor, async () => assertSchema('PostgresStore', POSTGRES_STORE_SCHEMA, await foundColumns(executor, POSTGRES_STORE_SCHEMA)))
    super(tracedExecutor(checked, 'postgresql'))
    this.#checked = checked
    this.#executor = executor
    this.claimNewTask = options.insertBeforeRun ? undefined : (record, unlessAccepted) => this.#claimNewTask(record, unlessAccepted)
    const shared: CapabilityName[] = ['acceptOnce', 'notifications', 'keptEvents', 'pushOutbox', 'jobRows', 'counters']
    this.capabilities = [...SQL_CAPABILITIES, ...shared, ...(options.insertBeforeRun ? [] : ['claims' as const])]
    this.#pool = pool as unknown as PgPool
    this.counters = new PgCounters(this.db)
    this.#reads = new PgReads(this.db)
    // keepAlive: a listening connection is idle for long; a dead peer is found by TCP, not by a query.
    const newClient = () => new pg.Client({ connectionString: url, keepAlive: true, application_name: LISTENER_NAME }) as unknown as PgListenClient
    const onListenLost =
      options.onConnectionError ?? throttledLog('the PostgreSQL connection the task store listens on was lost', 'it reconnects, and streams read the store meanwhile')
    this.notifications = new PgTaskNotifications(newClient, onListenLost, (notify) => this.db.query(notify, { idempotent: false }))
  }

  protected override updateStatement({ job, ...change }: statements.TaskUpdate): Sql {
    const outbox = change.events.length ? this.#outbox : undefined
    // With an outbox the update returns its task to the outbox rows' CTE, which builds 0.3 bodies from it.
    const update = outbox ? statements.updateTask(change, true) : super.updateStatement(change)
    if (!change.events.length && !job) return update
    const also = [...(outbox ? [outboxRows(outbox, change.events)] : []), ...(job ? [jobRowCte(job)] : [])]
    const shape = `update ${statements.updateShape(change)} keeping ${change.events.length ? 'events' : 'no events'} ${this.#outbox ?? ''}${job ? ` job ${job.schema}` : ''}`
    return shaped(shape, keepingEvents(update, change.events, also))
  }

  /** The job schemas checked, by the identity the queue gave: whether the job's table is in this database. */
  readonly #jobDatabases = new Map<string, Promise<boolean>>()

  /** True when `job`'s queue writes to this store's database (the same {@link DATABASE_IDENTITY}), with its table there. */
  writesJobRow(job: PgBossJobRow): Promise<boolean> {
    const key = `${jobSchema(job.schema)} ${job.database}`
    let same = this.#jobDatabases.get(key)
    if (!same) {
      same = this.db.query<{ identity: string }>(databaseIdentity(job.schema), { idempotent: true }).then(([row]) => row?.identity === job.database)
      same.catch(() => this.#jobDatabases.delete(key))
      this.#jobDatabases.set(key, same)
    }
    return same
  }

  override async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    const written = await super.update(id, expectedVersion, changes)
    // Once committed: a note never tells of a write before it can be read.
    if (written) this.notifications.notify(id, written.version)
    return written
  }

  async queuePushOutbox(schema: string): Promise<boolean> {
    const table = outboxTable(schema)
    const [found] = await this.db.query<{ exists: boolean }>(outboxExists(table), { idempotent: true })
    if (found?.exists) this.#outbox = table
    return Boolean(found?.exists)
  }

  async eventsSince(taskId: string, version: number): Promise<StoredEvent[]> {
    const rows = await this.db.query<{ version: number; event: StreamResponse }>(
      sql`SELECT "version", "event" FROM "A2ATaskEvent" WHERE "taskId" = ${taskId} AND "version" > ${version} ORDER BY "version"`,
      { idempotent: true },
    )
    return rows.map((row) => ({ version: row.version, response: row.event }))
  }

  /** The sweep's read also deletes the events past their time, so a quiet agent keeps none for long. */
  override async expiredRuns(now: number, limit: number): Promise<TaskRecord[]> {
    const rows = await this.db.query<TaskRow>(sql`WITH "pruned" AS (${pruneEvents(new Date(now))}) ${statements.selectExpiredRuns(now, limit)}`, { idempotent: true })
    return rows.map(toRecord)
  }

  override async get(id: string): Promise<TaskRecord | undefined> {
    const row = await this.#reads.task(id)
    return row && toRecord(row)
  }

  override async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    return (await this.#reads.byMessageId(owner, messageId)).map(toRecord)
  }

  protected override createStatements(record: TaskRecord, taskJson: string): Sql[] {
    return [shaped('insert task with messages', insertWithMessages(statements.insertTask(record, taskJson), record))]
  }

  /**
   * One statement: the message-id check is the insert's own condition. The message index has no
   * unique key on (owner, messageId) (a reused id with another message is a new task), so the
   * check is a probe of it within the insert; two replicas given the same message at once both
   * pass it, and the task id (made from the message) lets one in, as for {@link create}.
   */
  async createUnlessAccepted(record: TaskRecord): Promise<boolean> {
    const taskJson = encodeJson(record.task, 'task')
    const insert = shaped(
      `insert task with messages unless one of ${record.messageIds.length} is accepted`,
      insertWithMessages(statements.insertTaskUnlessAccepted(POSTGRES, record, taskJson), record),
    )
    // The message rows it inserted: none when the task was not.
    return this.inserting(record, taskJson, async () => (await this.db.execute(insert, GROUPED)) > 0)
  }

  /**
   * The claim is the task's message-index row, in a transaction held open while the run's first
   * turn lasts (postgres/held-inserts.ts); the insert is the task row, committed with it. Should the
   * claim not commit with its task (it lapsed, or the commit failed on another's statement), or
   * its connection die, the insert is made the way createUnlessAccepted (or create) makes it.
   * Absent with `insertBeforeRun`.
   */
  readonly claimNewTask: ((record: TaskRecord, unlessAccepted: boolean) => Promise<NewTaskClaim | undefined>) | undefined

  #claimNewTask(record: TaskRecord, unlessAccepted: boolean): Promise<NewTaskClaim | undefined> {
    return this.claimHeld(record, unlessAccepted, (claim, undo) => this.#checked.afterCheck(() => this.#executor.claim(claim, undo)))
  }

  protected override async trimChunk(tier: Viewer, keep: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string; statusTime: Date }>(trimSettledPast(tier, keep), { idempotent: true })
    // RETURNING comes in no particular order: newest first, ties by id descending, as listed.
    const keyOf = (row: { id: string; statusTime: Date }) => ({ time: row.statusTime.getTime(), id: row.id })
    return rows.sort((a, b) => compareNewestFirst(keyOf(a), keyOf(b))).map((row) => row.id)
  }

  /**
   * Resolves once the database has every table and column the store uses (checked once, here or
   * at the first statement, whichever comes first); rejects with a TaskStoreSchemaError naming what is missing, or with the
   * connection's error when the database could not be reached. Statements wait for the check too.
   */
  ready(): Promise<void> {
    return this.#checked.ready()
  }

  /** Closes the store's pool and its listening connection; the app's Prisma client is not touched. */
  async close(): Promise<void> {
    // The notes still waiting may go out on the pool.
    await this.notifications.close()
    await this.#pool.end()
  }
}
