/**
 * The task store on an app's Prisma client, over the models `a2a generate entities` writes to
 * prisma/a2a.prisma (A2ATask, A2ATaskMessage, A2APushConfig). Filtering, paging, counting and
 * retention trimming run in the database; the store never loads a table to filter it.
 *
 * Provider notes. SQLite: Prisma's better-sqlite3 adapter serves every query on one connection,
 * so call {@link prepareSqlite} once, and expect reads to see other transactions' uncommitted
 * writes. PostgreSQL: text and jsonb refuse U+0000, so a task or id holding it fails to store.
 * @module
 */
import type { Viewer } from '../../auth/principal.js'
import { TERMINAL_STATES } from '../../wire/types.js'
import { decodeCursor, encodeCursor } from '../cursor.js'
import { InvalidCursorError, type ListPage, type ListQuery, type PushConfigRecord, type Store, type StoreCapabilities, type TaskChanges, type TaskRecord } from '../store.js'
import type { PrismaTaskClient } from './client.js'
import type { prepareSqlite } from './sqlite.js'
import { jsonCopy, pushConfigData, taskData, timeOf, toDate, toPushConfig, toRecord } from './rows.js'
import { chunks, deleteTasks, indexMessages, reindexMessages, sameSet } from './writes.js'

/** Newest status first, ties by id descending: the keyset order of cursor.ts. */
const NEWEST_FIRST = [{ statusTime: 'desc' }, { id: 'desc' }] as const

const SETTLED = [...TERMINAL_STATES]

/** Prisma's unique-constraint violation. */
const isUniqueViolation = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'P2002'

export class PrismaStore implements Store {
  readonly capabilities: StoreCapabilities = { filtersTenant: true, filtersScope: true }
  readonly #db: PrismaTaskClient

  /** `db`: the app's PrismaClient, generated from a schema that includes prisma/a2a.prisma. */
  constructor(db: PrismaTaskClient) {
    this.#db = db
  }

  async create(record: TaskRecord): Promise<void> {
    const data = taskData(record, jsonCopy(record.task, 'task'))
    await this.#db.$transaction(async (tx) => {
      // A duplicate id fails here, before any message is indexed, and rolls back the rest.
      await tx.a2ATask.create({ data })
      await indexMessages(tx, record.owner, record.id, data.messageIds)
    })
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const row = await this.#db.a2ATask.findUnique({ where: { id } })
    return row ? toRecord(row) : undefined
  }

  async update(id: string, expectedVersion: number, changes: TaskChanges): Promise<TaskRecord | undefined> {
    // Refused before anything is written: an unencodable task changes nothing.
    const task = jsonCopy(changes.task, 'task')
    const current = await this.#db.a2ATask.findUnique({ where: { id } })
    if (!current || current.version !== expectedVersion) return undefined
    const updatedAt = Math.max(Date.now(), current.updatedAt.getTime())
    const before = current.messageIds as string[]
    const messageIds = changes.messageIds ? [...changes.messageIds] : undefined
    // Only the body, its derived columns and the version: owner, tenant and scope stay as created.
    const data = {
      version: expectedVersion + 1,
      updatedAt: toDate(updatedAt),
      task,
      statusState: task.status.state,
      statusTime: toDate(timeOf(task, updatedAt)),
      ...(messageIds ? { messageIds } : {}),
      ...(changes.repliedWithMessage !== undefined ? { repliedWithMessage: changes.repliedWithMessage } : {}),
    }
    // The version guard: a writer that got there first moved the version, and this matches nothing.
    const guarded = { where: { id, version: expectedVersion }, data }
    const reindex = messageIds !== undefined && !sameSet(before, messageIds)
    const written = reindex
      ? await this.#db.$transaction(async (tx) => {
          const { count } = await tx.a2ATask.updateMany(guarded)
          if (count === 1) await reindexMessages(tx, current.owner, id, before, messageIds)
          return count
        })
      : (await this.#db.a2ATask.updateMany(guarded)).count
    if (written !== 1) return undefined
    return toRecord({ ...current, ...data, messageIds: messageIds ?? before })
  }

  async list(query: ListQuery): Promise<ListPage> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
    // A well-formed cursor no row could have produced (a time beyond Date's range) is not ours either.
    if (after && Number.isNaN(new Date(after.time).getTime())) throw new InvalidCursorError(query.cursor!)
    const where = {
      owner: query.owner,
      ...(query.tenant !== undefined ? { tenant: query.tenant } : {}),
      ...(query.scope !== undefined ? { scope: query.scope } : {}),
      ...(query.contextId !== undefined ? { contextId: query.contextId } : {}),
      ...(query.states ? { statusState: { in: [...query.states] } } : {}),
      ...(query.statusAfter !== undefined && !Number.isNaN(query.statusAfter) ? { statusTime: { gte: toDate(query.statusAfter) } } : {}),
    }
    const time = after && new Date(after.time)
    const page = after ? { AND: [where, { OR: [{ statusTime: { lt: time } }, { statusTime: time, id: { lt: after.id } }] }] } : where
    const [rows, total] = await Promise.all([
      // One row past the page tells whether another page follows.
      this.#db.a2ATask.findMany({ where: page, orderBy: NEWEST_FIRST, take: query.pageSize + 1 }),
      this.#db.a2ATask.count({ where }),
    ])
    const records = rows.slice(0, query.pageSize)
    const last = records.at(-1)
    return {
      records: records.map(toRecord),
      total,
      ...(rows.length > query.pageSize && last ? { nextCursor: encodeCursor({ time: last.statusTime.getTime(), id: last.id }) } : {}),
    }
  }

  async delete(id: string): Promise<void> {
    await this.#db.$transaction((tx) => deleteTasks(tx, [id]))
  }

  async findByMessageId(owner: string, messageId: string): Promise<TaskRecord[]> {
    // The (owner, messageId) prefix of A2ATaskMessage's key, then the tasks by id.
    const links = await this.#db.a2ATaskMessage.findMany({ where: { owner, messageId } })
    if (links.length === 0) return []
    const rows = await this.#db.a2ATask.findMany({
      where: { owner, id: { in: links.map((link) => link.taskId) } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })
    return rows.map(toRecord)
  }

  async trimSettled(tier: Viewer, keep: number): Promise<string[]> {
    return this.#db.$transaction(async (tx) => {
      // Exactly this tier's settled rows, newest first; everything past the newest `keep` goes.
      const doomed = await tx.a2ATask.findMany({
        where: { owner: tier.owner, tenant: tier.tenant, scope: tier.scope, statusState: { in: SETTLED } },
        orderBy: NEWEST_FIRST,
        skip: Math.max(keep, 0),
        select: { id: true },
      })
      // Oldest first, as MemoryStore reports them.
      const ids = doomed.map((row) => row.id).reverse()
      await deleteTasks(tx, ids)
      return ids
    })
  }

  async putPushConfig(record: PushConfigRecord): Promise<void> {
    const data = pushConfigData(record)
    // Replace by delete and insert: an upsert could not clear `authentication` without the app's
    // Prisma.DbNull. Two concurrent puts of one config can collide on the key; the loser retries.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#db.$transaction(async (tx) => {
          await tx.a2APushConfig.deleteMany({ where: { taskId: record.taskId, id: record.id } })
          await tx.a2APushConfig.create({ data })
        })
        return
      } catch (error) {
        if (attempt >= 3 || !isUniqueViolation(error)) throw error
      }
    }
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfigRecord | undefined> {
    const row = await this.#db.a2APushConfig.findUnique({ where: { taskId_id: { taskId, id } } })
    return row ? toPushConfig(row) : undefined
  }

  async listPushConfigs(taskId: string): Promise<PushConfigRecord[]> {
    const rows = await this.#db.a2APushConfig.findMany({ where: { taskId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
    return rows.map(toPushConfig)
  }

  async deletePushConfig(taskId: string, id: string): Promise<void> {
    await this.#db.a2APushConfig.deleteMany({ where: { taskId, id } })
  }

  async deletePushConfigsOfTasks(taskIds: readonly string[]): Promise<void> {
    for (const ids of chunks(taskIds)) await this.#db.a2APushConfig.deleteMany({ where: { taskId: { in: ids } } })
  }
}
