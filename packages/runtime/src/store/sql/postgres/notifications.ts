/**
 * Task writes of every replica on one PostgreSQL database, heard as they commit: PostgresStore
 * notifies each version-guarded write once it has committed (never before, never one that rolled
 * back), and keeps the write's event in A2ATaskEvent within the write's own statement (see
 * {@link keepingEvent}). One dedicated connection per process LISTENs and also sends the notes,
 * batched: `pg_notify` inside the write itself would hold PostgreSQL's notify lock through each
 * write's commit and flush, which serialized concurrent writes (16 at once, same run: 445
 * updates/s with it in the write, 1587 after the commit). Notes are small (version and task id);
 * readers fetch from the store.
 *
 * The listening connection is a plain pg Client with an `error` handler for its whole life. When
 * it dies (a failover, pg_terminate_backend), `live` turns false, it reconnects with backoff, and
 * once listening again every listener hears `resync`: whatever was written meanwhile is read from
 * the store, so no write is lost, only heard late (followers read on a timer while it is down).
 * @module
 */
import type { TaskNote, TaskNotifications } from '../../store.js'
import type { StreamResponse } from '../../../wire/types.js'
import type { ErrorEmitter } from './pool.js'
import { sql, type Sql } from '../sql.js'
import { WRITTEN_ROW } from '../statements.js'

/** The channel every task write is notified on. */
export const TASK_CHANNEL = 'a2a_task'

/** The listening connection's application_name, as pg_stat_activity shows it. */
export const LISTENER_NAME = 'a2a task notifications'

/** The part of a pg Client the listener uses. */
export interface PgListenClient extends ErrorEmitter {
  connect(): Promise<unknown>
  query(query: string | { text: string; values: unknown[] }): Promise<unknown>
  end(): Promise<void>
  removeAllListeners(): unknown
}

const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 5000
/** Notes waiting to be sent, at most: past it the oldest go (followers' safety reads cover them). */
const MAX_PENDING = 10_000
/** Notes per NOTIFY statement. */
const BATCH = 1000

/** How long a write's event is kept for followers on other replicas: they read it within milliseconds of its note. */
export const EVENT_KEEP_MS = 60_000

const keptUntil = (now: Date): Date => new Date(now.getTime() - EVENT_KEEP_MS)

/** Events the sweep deletes at most per sweep query: ~2,600 a second at the default lease's sweep every 7.5 s. */
const PRUNE_BATCH = 20_000

/**
 * Events past {@link EVENT_KEEP_MS}, deleted by the sweep (a trimmed task's go with it): the
 * only pruning, so writes pay none. Rows another sweep holds are left to it, so sweeps never wait on each other.
 */
export const pruneEvents = (now: Date): Sql =>
  sql`DELETE FROM "A2ATaskEvent" WHERE ("taskId", "version") IN
    (SELECT "taskId", "version" FROM "A2ATaskEvent" WHERE "createdAt" < ${keptUntil(now)} LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`

/**
 * The events of a write as rows ("event", "version"), from the row `"written"` (aliased `w`):
 * the last under the version it made, each earlier one under the version before.
 */
export const eventRows = (events: readonly StreamResponse[]): Sql =>
  sql`"written" w CROSS JOIN jsonb_array_elements(${JSON.stringify(events)}::jsonb) WITH ORDINALITY AS e("event", "n")`
export const eventVersion = (events: readonly StreamResponse[]): Sql => sql`w."version" - ${events.length} + e."n"`

/**
 * The version-guarded update keeping its write's events in A2ATaskEvent, in the same statement: no
 * round trip more. `also`: more CTEs reading the row `"written"` (outbox rows, a job row), and columns.
 */
export function keepingEvents(update: Sql, events: readonly StreamResponse[], also: readonly { ctes: Sql; columns: Sql }[] = []): Sql {
  if (!events.length && !also.length) return update
  const now = new Date()
  const kept = events.length
    ? sql`, "kept" AS (INSERT INTO "A2ATaskEvent" ("taskId", "version", "owner", "event", "createdAt")
        SELECT w."id", ${eventVersion(events)}, w."owner", e."event", ${now} FROM ${eventRows(events)}
        ON CONFLICT ("taskId", "version") DO UPDATE SET "owner" = excluded."owner", "event" = excluded."event", "createdAt" = excluded."createdAt")`
    : sql``
  const ctes = also.reduce((all, one) => sql`${all}${one.ctes}`, kept)
  const columns = also.reduce((all, one) => sql`${all}${one.columns}`, sql``)
  // The written row's columns, never its task, which the update may return for the CTEs alone.
  return sql`WITH "written" AS (${update})${ctes}
    SELECT ${WRITTEN_ROW}${columns} FROM "written"`
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
  readonly #pending: string[] = []
  /** The send loop while it runs: close lets it finish first. */
  #sending: Promise<void> | undefined
  readonly #sendOnPool: (notify: Sql) => Promise<unknown>
  #closed = false

  /**
   * `newClient` makes an unconnected pg Client to the store's database; `sendOnPool` runs a
   * statement on the store's pool (notes go that way while no connection listens).
   */
  constructor(newClient: () => PgListenClient, onLost: (error: Error) => void, sendOnPool: (notify: Sql) => Promise<unknown>) {
    this.#newClient = newClient
    this.#onLost = onLost
    this.#sendOnPool = sendOnPool
  }

  /**
   * Tells every replica that the task's write of `version` committed (call it after the commit).
   * Notes go out in order, as many per statement as wait, one statement at a time.
   */
  notify(taskId: string, version: number): void {
    if (this.#pending.length >= MAX_PENDING) this.#pending.shift()
    this.#pending.push(`${version}:${taskId}`)
    this.#sending ??= this.#send().finally(() => (this.#sending = undefined))
  }

  async #send(): Promise<void> {
    while (this.#pending.length > 0) {
      const notes = this.#pending.splice(0, BATCH)
      const notify = sql`SELECT count(pg_notify(${TASK_CHANNEL}, "note"))::int AS "sent" FROM unnest(${notes}::text[]) AS "note"`
      const client = this.#live ? this.#client : undefined
      try {
        // The listening connection commits these without waiting for a flush (a lost note is only heard late).
        await (client ? client.query({ text: notify.text, values: notify.values }) : this.#sendOnPool(notify))
      } catch (error) {
        // A connection closed here on purpose (no one listens any more) is no loss to report.
        if (!client || client === this.#client) this.#onLost(error as Error)
        // Sent again once a connection is there; the newest past the bound win.
        this.#pending.unshift(...notes.slice(Math.max(0, notes.length + this.#pending.length - MAX_PENDING)))
        if (this.#closed) return
        await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_MS).unref())
      }
    }
  }

  get live(): boolean {
    return this.#live
  }

  listen(listener: (note: TaskNote) => void): () => void {
    this.#listeners.add(listener)
    if (this.#listeners.size === 1) void this.#open()
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) void this.#unlisten()
    }
  }

  /** Sends the notes still waiting, stops listening and closes the connection (the store's close calls it). */
  async close(): Promise<void> {
    this.#closed = true
    await this.#sending
    this.#listeners.clear()
    await this.#unlisten()
  }

  async #unlisten(): Promise<void> {
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
      await client.query(`SET synchronous_commit = off`)
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
