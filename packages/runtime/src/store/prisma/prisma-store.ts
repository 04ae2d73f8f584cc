/**
 * The task store on an app's Prisma client, over the models `a2a generate entities` writes to
 * prisma/a2a.prisma (A2ATask, A2ATaskMessage, A2APushConfig). Filtering, paging, counting and
 * retention trimming run in the database; the store never loads a table to filter it. Statements
 * go as raw SQL through the client (see sql.ts for why), a few per call: a SendMessage that
 * completes at once costs about a dozen.
 *
 * Provider notes. SQLite: Prisma's better-sqlite3 adapter serves every query on one connection,
 * so call {@link prepareSqlite} once, and expect reads to see other transactions' uncommitted
 * writes. PostgreSQL: text and jsonb refuse U+0000, so a task or id holding it fails to store;
 * tables outside `public` need the schema on the connection's search_path (see sql.ts).
 * @module
 */
import type { Viewer } from '../../auth/principal.js'
import { decodeCursor, encodeCursor } from '../cursor.js'
import { InvalidCursorError, type ListPage, type ListQuery, type PushConfigRecord, type Store, type StoreCapabilities, type TaskChanges, type TaskRecord } from '../store.js'
import type { PrismaTaskClient, PushConfigRow, TaskRow } from './client.js'
import type { prepareSqlite } from './sqlite.js'
import { jsonText, toPushConfig, toRecord } from './rows.js'
import { execute, query } from './sql.js'
import * as statements from './statements.js'

export class PrismaStore implements Store {
  readonly capabilities: StoreCapabilities = { filtersTenant: true, filtersScope: true }
  readonly #db: PrismaTaskClient

  /** `db`: the app's PrismaClient, generated from a schema that includes prisma/a2a.prisma. */
  constructor(db: PrismaTaskClient) {
    this.#db = db
  }

  async create(record: TaskRecord): Promise<void> {
    const db = this.#db
    const taskJson = jsonText(record.task, 'task')
    // One transaction: a duplicate id fails the insert, before any message is indexed.
    await db.$transaction([
      execute(db, statements.insertTask(record, taskJson)),
      ...statements.insertMessageIndex(record.owner, record.id, record.messageIds).map((statement) => execute(db, statement)),
    ])
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const [row] = await query<TaskRow>(this.#db, statements.selectTask(id))
    return row ? toRecord(row) : undefined
  }

  async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    // Refused before anything is written: an unencodable task changes nothing.
    const change = {
      id,
      expectedVersion,
      task: changes.task,
      taskJson: jsonText(changes.task, 'task'),
      ...(changes.messageIds ? { messageIds: [...changes.messageIds] } : {}),
      ...(changes.repliedWithMessage !== undefined ? { repliedWithMessage: changes.repliedWithMessage } : {}),
    }
    if (!change.messageIds) {
      // The common write: one statement, guarded by the version, returning what it wrote.
      const [row] = await query<TaskRow>(this.#db, statements.updateTask(change))
      return row ? toRecord(row) : undefined
    }
    const messageIds = change.messageIds
    return this.#db.$transaction(async (tx) => {
      const [indexed] = await query<Pick<TaskRow, 'owner' | 'messageIds'>>(tx, statements.selectIndexed(id, expectedVersion))
      if (!indexed) return undefined
      const [row] = await query<TaskRow>(tx, statements.updateTask(change))
      if (!row) return undefined
      const [was, is] = [new Set(indexed.messageIds as string[]), new Set(messageIds)]
      for (const statement of statements.deleteMessageIndex(id, [...was].filter((m) => !is.has(m)))) await execute(tx, statement)
      for (const statement of statements.insertMessageIndex(indexed.owner, id, [...is].filter((m) => !was.has(m)))) await execute(tx, statement)
      return toRecord(row)
    })
  }

  async list(listQuery: ListQuery): Promise<ListPage> {
    const after = listQuery.cursor === undefined ? undefined : decodeCursor(listQuery.cursor)
    // A well-formed cursor no row could have produced (a time beyond Date's range) is not ours either.
    if (after && Number.isNaN(new Date(after.time).getTime())) throw new InvalidCursorError(listQuery.cursor!)
    const filters = statements.listFilters(listQuery)
    const [rows, [counted]] = await Promise.all([
      query<TaskRow>(this.#db, statements.selectPage(filters, listQuery.pageSize, after)),
      query<{ total: number | bigint }>(this.#db, statements.countTasks(filters)),
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
    await this.#deleteTasks([id])
  }

  async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    const rows = await query<TaskRow>(this.#db, statements.selectByMessageId(owner, messageId))
    return rows.map(toRecord)
  }

  async trimSettled(tier: Viewer, keep: number): Promise<string[]> {
    // Exactly this tier's settled rows past the newest `keep`, a chunk at a time; usually none or one.
    const doomed: string[] = []
    for (;;) {
      const rows = await query<{ id: string }>(this.#db, statements.selectSettledPast(tier, keep))
      const ids = rows.map((row) => row.id)
      if (ids.length > 0) await this.#deleteTasks(ids)
      doomed.push(...ids)
      if (ids.length < statements.CHUNK) break
    }
    // Oldest first, as MemoryStore reports them.
    return doomed.reverse()
  }

  async putPushConfig(record: PushConfigRecord): Promise<void> {
    const authentication = record.authentication === undefined ? null : jsonText(record.authentication, 'authentication')
    await execute(this.#db, statements.upsertPushConfig(record, authentication))
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined> {
    const [row] = await query<PushConfigRow>(this.#db, statements.selectPushConfig(taskId, id))
    return row ? toPushConfig(row) : undefined
  }

  async listPushConfigs(taskId: string): Promise<PushConfigRecord[]> {
    const rows = await query<PushConfigRow>(this.#db, statements.selectPushConfigs(taskId))
    return rows.map(toPushConfig)
  }

  async deletePushConfig(taskId: string, id: string): Promise<void> {
    await execute(this.#db, statements.deletePushConfig(taskId, id))
  }

  async deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void> {
    for (const statement of statements.deletePushConfigsOf(taskIds)) await execute(this.#db, statement)
  }

  /** Tasks with their message index rows and push configs, in one transaction. */
  async #deleteTasks(ids: readonly string[]): Promise<void> {
    const db = this.#db
    await db.$transaction(statements.deleteTasks(ids).map((statement) => execute(db, statement)))
  }
}
