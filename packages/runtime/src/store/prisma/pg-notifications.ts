/**
 * Task writes of every replica on one PostgreSQL database, heard as they commit: each version-
 * guarded write of PostgresStore calls `pg_notify` inside its own statement (see
 * {@link notifyingUpdate}), so a note is delivered at its commit, never before, and never for a
 * write that rolled back. One dedicated connection per process LISTENs; notes are small (version
 * and task id) and readers fetch the task from the store.
 *
 * The listening connection is a plain pg Client with an `error` handler for its whole life. When
 * it dies (a failover, pg_terminate_backend), `live` turns false, it reconnects with backoff, and
 * once listening again every listener hears `resync`: whatever was written meanwhile is read from
 * the store, so no write is lost, only heard late (followers read on a timer while it is down).
 * @module
 */
import type { TaskNote, TaskNotifications } from '../store.js'
import type { StreamResponse } from '../../wire/types.js'
import type { ErrorEmitter } from './postgres.js'
import { sql, type Sql } from './sql.js'

/** The channel every task write is notified on. */
export const TASK_CHANNEL = 'a2a_task'

/** The part of a pg Client the listener uses. */
export interface PgListenClient extends ErrorEmitter {
  connect(): Promise<unknown>
  query(text: string): Promise<unknown>
  end(): Promise<void>
  removeAllListeners(): unknown
}

const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 5000

/** How long a write's event is kept for followers on other replicas: they read it within milliseconds of its note. */
export const EVENT_KEEP_MS = 60_000

const keptUntil = (now: Date): Date => new Date(now.getTime() - EVENT_KEEP_MS)

/** Events past {@link EVENT_KEEP_MS}, deleted by the sweep; rows another sweep holds are left to it, so sweeps never wait on each other. */
export const pruneEvents = (now: Date): Sql =>
  sql`DELETE FROM "A2ATaskEvent" WHERE ("taskId", "version") IN
    (SELECT "taskId", "version" FROM "A2ATaskEvent" WHERE "createdAt" < ${keptUntil(now)} LIMIT 1000 FOR UPDATE SKIP LOCKED)`

/**
 * The version-guarded update, notifying its write: the row as written, plus `pg_notify` of
 * `<version>:<id>` on {@link TASK_CHANNEL}, and the write's event kept in A2ATaskEvent (this
 * task's events past their time deleted: writes of two tasks never wait on each other's rows), all
 * in the same statement: no round trip more.
 */
export function notifyingUpdate(update: Sql, event: StreamResponse | undefined): Sql {
  const now = new Date()
  const kept = event
    ? sql`, "kept" AS (INSERT INTO "A2ATaskEvent" ("taskId", "version", "owner", "event", "createdAt") SELECT "id", "version", "owner", ${JSON.stringify(event)}::jsonb, ${now} FROM "written"
        ON CONFLICT ("taskId", "version") DO UPDATE SET "owner" = excluded."owner", "event" = excluded."event", "createdAt" = excluded."createdAt"),
      "pruned" AS (DELETE FROM "A2ATaskEvent" WHERE "taskId" = (SELECT "id" FROM "written") AND "createdAt" < ${keptUntil(now)})`
    : sql``
  return sql`WITH "written" AS (${update})${kept}
    SELECT "written".*, pg_notify(${TASK_CHANNEL}, "written"."version" || ':' || "written"."id")::text AS "notified" FROM "written"`
}

/** `<version>:<taskId>` → a note; anything else (another app's NOTIFY on the channel) is ignored. */
export function parseNote(payload: string | undefined): TaskNote | undefined {
  const colon = payload?.indexOf(':') ?? -1
  if (!payload || colon < 1) return undefined
  const version = Number(payload.slice(0, colon))
  return Number.isSafeInteger(version) ? { taskId: payload.slice(colon + 1), version } : undefined
}

export class PgTaskNotifications implements TaskNotifications {
  readonly #listeners = new Set<(note: TaskNote) => void>()
  readonly #newClient: () => PgListenClient
  readonly #onLost: (error: Error) => void
  #client: PgListenClient | undefined
  #live = false
  #retryMs = FIRST_RETRY_MS
  #retry: NodeJS.Timeout | undefined

  /** `newClient` makes an unconnected pg Client to the store's database. */
  constructor(newClient: () => PgListenClient, onLost: (error: Error) => void) {
    this.#newClient = newClient
    this.#onLost = onLost
  }

  get live(): boolean {
    return this.#live
  }

  listen(listener: (note: TaskNote) => void): () => void {
    this.#listeners.add(listener)
    if (this.#listeners.size === 1) void this.#open()
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) void this.close()
    }
  }

  /** Stops listening and closes the connection (the store's close calls it). */
  async close(): Promise<void> {
    this.#listeners.clear()
    clearTimeout(this.#retry)
    const client = this.#client
    this.#client = undefined
    this.#live = false
    await client?.end().catch(() => undefined)
  }

  async #open(): Promise<void> {
    if (this.#client || this.#listeners.size === 0) return
    const client = this.#newClient()
    this.#client = client
    // Every error of this connection's life lands here (guardPool's rule): none stops the process.
    client.on('error', (error: Error) => this.#onLost(error))
    client.on('end', () => this.#lost(client))
    client.on('notification', (message: { channel: string; payload?: string }) => {
      const note = message.channel === TASK_CHANNEL ? parseNote(message.payload) : undefined
      if (note) this.#emit(note)
    })
    try {
      await client.connect()
      await client.query(`LISTEN "${TASK_CHANNEL}"`)
    } catch (error) {
      this.#onLost(error as Error)
      client.removeAllListeners()
      client.on('error', () => undefined)
      void client.end().catch(() => undefined)
      return this.#lost(client)
    }
    if (this.#client !== client) return
    this.#live = true
    this.#retryMs = FIRST_RETRY_MS
    // Writes committed before LISTEN took effect were not heard: listeners read the store again.
    this.#emit({ resync: true })
  }

  #lost(client: PgListenClient): void {
    if (this.#client !== client) return
    this.#client = undefined
    this.#live = false
    if (this.#listeners.size === 0) return
    // Followers now read the store on a timer until the connection is back.
    this.#emit({ resync: true })
    this.#retry = setTimeout(() => void this.#open(), this.#retryMs)
    this.#retry.unref()
    this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS)
  }

  #emit(note: TaskNote): void {
    for (const listener of [...this.#listeners]) listener(note)
  }
}
