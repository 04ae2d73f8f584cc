/**
 * The task store over the tables of prisma/a2a.prisma, on any {@link Executor}: PrismaStore runs
 * it on the app's Prisma client, SqliteStore on a better-sqlite3 connection of its own. Filtering,
 * paging, counting and retention trimming run in the database; the store never loads a table to
 * filter it. A SendMessage that completes at once costs 16 statements (bench/stores.bench.ts counts them).
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import type { Viewer } from '../../core/principal.js'
import { decodeCursor, encodeCursor } from '../cursor.js'
import type { Capabilities, CapabilityName } from '../capabilities.js'
import {
  InvalidCursorError,
  type ListPage,
  type ListQuery,
  type NewTaskClaim,
  type PushConfigRecord,
  type Store,
  type TaskChanges,
  type TaskRecord,
  eventsOf,
  tierKey,
  versionsOf,
} from '../store.js'
import { SqlArtifactFiles } from './artifact-files.js'
import { read, write, type Executor, type Run, type Steps } from './executor.js'
import { encodeJson } from '../../wire/json-safe.js'
import type { Task } from '../../wire/types.js'
import { authenticationColumn, toPushConfig, toRecord, type PushConfigRow, type TaskRow } from './rows.js'
import { Coalesced } from './coalesced.js'
import { VersionFacts } from './version-facts.js'
import type { Sql } from './sql.js'
import type { HeldClaim } from './postgres/held-inserts.js'
import * as statements from './statements.js'

/** Statements that may be sent again after their connection died: reads, upserts, deletes. */
const REPEATABLE: Run = { idempotent: true }

/** A write that may share its commit with other writes of the same turn (see Run.group). */
export const GROUPED: Run = { group: true }

/** The capabilities every SQL store has. */
export const SQL_CAPABILITIES: readonly CapabilityName[] = ['filtersTenant', 'filtersScope', 'leases', 'pushHints', 'trims', 'pacedTrims', 'artifactFiles']

/** Tasks whose writes' facts are remembered until their events are handed on (see version-facts.ts). */
const REMEMBERED_TASKS = 4096

/** An updated row, with whether its task has push configs and the configs its outbox rows went to (PostgresStore: an array; MysqlStore: its JSON, or null). */
type PushedRow = Omit<TaskRow, 'task'> & { pushed: boolean | number | bigint; outboxed?: string[] | string | null }

/** The configs of an updated row's outbox rows, each once; undefined without any. */
const outboxedOf = ({ outboxed }: PushedRow): string[] | undefined =>
  outboxed === undefined || outboxed === null ? undefined : [...new Set<string>(typeof outboxed === 'string' ? JSON.parse(outboxed) : outboxed)]

export class SqlStore implements Store {
  /** What every SQL store has; a subclass adds its own (see capabilities.ts). */
  readonly capabilities: readonly CapabilityName[] = SQL_CAPABILITIES
  /** Oversized artifact content, in A2AArtifactFile. */
  readonly artifactFiles: SqlArtifactFiles
  readonly #db: Executor
  readonly #trims = new Coalesced<string[]>()
  /** Versions whose write saw the task without push configs: their events need no lookup. */
  readonly #unpushed = new VersionFacts<true>(REMEMBERED_TASKS)
  /** Versions whose write also wrote outbox rows, and the configs they went to. */
  readonly #outboxed = new VersionFacts<string[]>(REMEMBERED_TASKS)

  constructor(executor: Executor) {
    this.#db = executor
    this.artifactFiles = new SqlArtifactFiles(executor)
  }

  async create(record: TaskRecord): Promise<void> {
    const taskJson = encodeJson(record.task, 'task')
    await this.inserting(record, taskJson, async () => {
      await this.#db.batch(this.createStatements(record, taskJson), GROUPED)
      return true
    })
  }

  /**
   * Runs `insert`, the record's insert (resolving whether it stored the record). When the
   * connection died under it the insert may have committed: ours if the row is there as written
   * (ids are made from the message and its sender, or are random UUIDs); sent again once if it is not.
   */
  protected async inserting(record: TaskRecord, taskJson: string, insert: () => Promise<boolean>): Promise<boolean> {
    try {
      return await insert()
    } catch (error) {
      if (!this.#db.lostConnection?.(error)) throw error
      const stored = await this.get(record.id)
      if (!stored) return insert()
      if (stored.owner !== record.owner || stored.createdAt !== record.createdAt || !isDeepStrictEqual(stored.task, JSON.parse(taskJson))) throw error
      return true
    }
  }

  /**
   * Store.claimNewTask on a store that holds claims in an open transaction (postgres/held-inserts.ts):
   * `hold` sends the claim of the record's one message id and its undo. Should the claim not
   * commit with its task (it lapsed, or the commit failed on another's statement), or its
   * connection die, the insert is made the way createUnlessAccepted (or create) makes it.
   */
  protected async claimHeld(record: TaskRecord, unlessAccepted: boolean, hold: (claim: Sql, undo: Sql) => Promise<HeldClaim<Sql> | undefined>): Promise<NewTaskClaim | undefined> {
    const [messageId, ...more] = record.messageIds
    if (messageId === undefined || more.length > 0) throw new TypeError(`claimNewTask takes a task with one message id, not ${record.messageIds.length}`)
    const { owner, id } = record
    const claim = await hold(statements.claimMessageId(this.#db.dialect, owner, id, messageId, unlessAccepted), statements.unclaimMessageId(owner, id, messageId))
    if (!claim) return undefined
    return {
      insert: async (latest) => {
        let taskJson: string
        try {
          taskJson = encodeJson(latest.task, 'task')
        } catch (error) {
          claim.release()
          throw error
        }
        // After a lost connection the read-back tells whether it landed; sent again, a decided claim answers false.
        if (await this.inserting(latest, taskJson, () => claim.insert(statements.insertTask(latest, taskJson)))) return true
        const accepting = (this as Partial<Capabilities['acceptOnce']>).createUnlessAccepted
        return unlessAccepted && accepting ? accepting.call(this, latest) : this.create(latest).then(() => true)
      },
      release: () => claim.release(),
    }
  }

  /**
   * The statements that store a new record and index its messages, run as one transaction: a
   * duplicate id fails the insert, before any message is indexed.
   */
  protected createStatements(record: TaskRecord, taskJson: string): Sql[] {
    return [statements.insertTask(record, taskJson), ...statements.insertMessageIndex(record.owner, record.id, record.messageIds)]
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const [row] = await this.#db.query<TaskRow>(statements.selectTask(id), REPEATABLE)
    return row ? toRecord(row) : undefined
  }

  async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    // Refused before anything is written: an unencodable task changes nothing.
    const change = {
      id,
      expectedVersion,
      task: changes.task,
      taskJson: encodeJson(changes.task, 'task'),
      ...(changes.messageIds ? { messageIds: [...changes.messageIds] } : {}),
      ...(changes.repliedWithMessage !== undefined ? { repliedWithMessage: changes.repliedWithMessage } : {}),
      ...(changes.lease !== undefined ? { lease: changes.lease } : {}),
      ...(changes.job ? { job: changes.job } : {}),
      events: eventsOf(changes),
      versions: versionsOf(changes),
    }
    try {
      return await this.#update(change)
    } catch (error) {
      if (!this.#db.lostConnection?.(error)) throw error
      // The connection died: the write may have committed. The version tells: still the
      // expected one, nothing landed and the write is sent again once; one more with our task,
      // it landed; anything else, another writer moved on, as a lost race answers.
      const stored = await this.get(id)
      if (stored?.version === expectedVersion) return this.#update(change)
      if (stored?.version === expectedVersion + change.versions && isDeepStrictEqual(stored.task, JSON.parse(change.taskJson))) return stored
      return undefined
    }
  }

  async #update(change: statements.TaskUpdate): Promise<TaskRecord | undefined> {
    const { id, expectedVersion } = change
    if (!change.messageIds) {
      // The common write: one statement, guarded by the version, returning what it wrote.
      const [row] = await this.#db.query<PushedRow>(this.updateStatement(change), GROUPED)
      return row ? this.#written(row, change.task, change.versions) : undefined
    }
    const messageIds = change.messageIds
    const written = (row: PushedRow) => this.#written(row, change.task, change.versions)
    const updateStatement = this.updateStatement(change)
    // Read the indexed ids, write the task, re-index: one transaction, so a racing writer that
    // loses on the version leaves the index as the winner wrote it.
    return this.#db.transaction(function* (): Steps<TaskRecord | undefined> {
      const [indexed] = yield* read<Pick<TaskRow, 'owner' | 'messageIds'>>(statements.selectIndexed(id, expectedVersion))
      if (!indexed) return undefined
      const [row] = yield* read<PushedRow>(updateStatement)
      if (!row) return undefined
      const [was, is] = [new Set(indexed.messageIds as string[]), new Set(messageIds)]
      for (const statement of statements.deleteMessageIndex(
        id,
        [...was].filter((m) => !is.has(m)),
      ))
        yield* write(statement)
      for (const statement of statements.insertMessageIndex(
        indexed.owner,
        id,
        [...is].filter((m) => !was.has(m)),
      ))
        yield* write(statement)
      return written(row)
    })
  }

  /**
   * The record of a row an update returned, with the task the caller wrote (MemoryStore gives it
   * back as is too), remembering when the task had no push configs then.
   */
  #written(row: PushedRow, task: Task, versions: number): TaskRecord {
    // Each version the write made had its own event, and the same facts.
    const outboxed = outboxedOf(row)
    for (let version = row.version - versions + 1; version <= row.version; version++) {
      if (outboxed?.length) this.#outboxed.set(row.id, version, outboxed)
      // SQLite answers 0 or 1, PostgreSQL a boolean.
      if (!Number(row.pushed)) this.#unpushed.set(row.id, version, true)
    }
    return toRecord({ ...row, task })
  }

  /** The version-guarded write returning the row as written (PostgresStore's also notifies it). */
  protected updateStatement(change: statements.TaskUpdate): Sql {
    // Dropped here, the job would be lost: only a store with the capability jobRows is given one.
    if (change.job) throw new Error(`${this.constructor.name} cannot insert a job row with a task write (it has no capability jobRows)`)
    return statements.updateTask(change)
  }

  async list(listQuery: ListQuery): Promise<ListPage> {
    const after = listQuery.cursor === undefined ? undefined : decodeCursor(listQuery.cursor)
    // A well-formed cursor no row could have produced (a time beyond Date's range) is not ours either.
    if (after && Number.isNaN(new Date(after.time).getTime())) throw new InvalidCursorError(listQuery.cursor!)
    const filters = statements.listFilters(listQuery)
    const [rows, [counted]] = await Promise.all([
      this.#db.query<TaskRow>(statements.selectPage(filters, listQuery.pageSize, after), REPEATABLE),
      this.#db.query<{ total: number | bigint | string }>(statements.countTasks(filters), REPEATABLE),
    ])
    const records = rows.slice(0, listQuery.pageSize)
    const last = records.at(-1)
    return {
      records: records.map(toRecord),
      total: Number(counted?.total ?? 0),
      ...(rows.length > listQuery.pageSize && last ? { nextCursor: encodeCursor({ time: last.statusTime.getTime(), id: last.id }) } : {}),
    }
  }

  async delete(id: string): Promise<void> {
    await this.#db.batch(statements.deleteTasks([id]), REPEATABLE)
  }

  async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    const rows = await this.#db.query<TaskRow>(statements.selectByMessageId(owner, messageId), REPEATABLE)
    return rows.map(toRecord)
  }

  async renewLeases(runner: string, taskIds: readonly string[], until: number): Promise<void> {
    // Repeatable: moving a lease to the same time twice leaves it there.
    for (const statement of statements.renewLeases(runner, taskIds, until)) await this.#db.execute(statement, REPEATABLE)
  }

  async expiredRuns(now: number, limit: number): Promise<TaskRecord[]> {
    const rows = await this.#db.query<TaskRow>(statements.selectExpiredRuns(now, limit), REPEATABLE)
    return rows.map(toRecord)
  }

  trimSettled(tier: Viewer, keep: number): Promise<string[]> {
    // Runs settling together in one tier share a trim (see coalesced.ts).
    return this.#trims.run(`${keep} ${tierKey(tier.owner, tier.tenant, tier.scope)}`, () => this.#trim(tier, keep)).then((ids) => [...ids])
  }

  async #trim(tier: Viewer, keep: number): Promise<string[]> {
    // Exactly this tier's settled rows past the newest `keep`, a chunk at a time; usually none or one.
    const doomed: string[] = []
    for (;;) {
      const ids = await this.trimChunk(tier, keep)
      doomed.push(...ids)
      if (ids.length < statements.CHUNK) break
    }
    // Oldest first, as MemoryStore reports them.
    return doomed.reverse()
  }

  /**
   * Deletes up to a chunk of the tier's settled tasks past its newest `keep`, with their message
   * index rows and push configs, and returns their ids newest first.
   */
  protected async trimChunk(tier: Viewer, keep: number): Promise<string[]> {
    const rows = await this.#db.query<{ id: string }>(statements.selectSettledPast(tier, keep), REPEATABLE)
    const ids = rows.map((row) => row.id)
    // Tasks with their message index rows and push configs, in one transaction.
    if (ids.length > 0) await this.#db.batch(statements.deleteTasks(ids), REPEATABLE)
    return ids
  }

  /** The executor, for a subclass's own statements. */
  protected get db(): Executor {
    return this.#db
  }

  async putPushConfig(record: PushConfigRecord): Promise<void> {
    this.#unpushed.drop(record.taskId)
    const column = authenticationColumn(record)
    const authentication = column === undefined ? null : encodeJson(column, 'authentication')
    await this.#db.execute(statements.upsertPushConfig(this.#db.dialect, record, authentication), REPEATABLE)
  }

  outboxedFor(taskId: string, version: number): string[] | undefined {
    return this.#outboxed.take(taskId, version)
  }

  noPushConfigsFor(taskId: string, version: number): boolean {
    return this.#unpushed.take(taskId, version) === true
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined> {
    const [row] = await this.#db.query<PushConfigRow>(statements.selectPushConfig(taskId, id), REPEATABLE)
    return row ? toPushConfig(row) : undefined
  }

  async listPushConfigs(taskId: string): Promise<PushConfigRecord[]> {
    const rows = await this.#db.query<PushConfigRow>(statements.selectPushConfigs(taskId), REPEATABLE)
    return rows.map(toPushConfig)
  }

  async deletePushConfig(taskId: string, id: string): Promise<void> {
    await this.#db.execute(statements.deletePushConfig(taskId, id), REPEATABLE)
  }

  async deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void> {
    for (const statement of statements.deletePushConfigsOf(taskIds)) await this.#db.execute(statement, REPEATABLE)
  }
}
