/**
 * Task writes of every replica on one MySQL or MariaDB database, heard by polling: MySQL has no
 * LISTEN/NOTIFY. Every write MysqlStore makes with events keeps them in A2ATaskEvent in its own
 * transaction, stamped with the database's clock (UTC_TIMESTAMP(3)); that table is the feed. While
 * anyone listens, each process reads the rows stamped since the newest it saw, less a margin
 * ({@link OVERLAP_MS}: a row is stamped when its statement runs and seen once its transaction
 * commits, a little later), every {@link POLL_MS}, and tells each (task, version) once. The
 * sweep prunes the table (keepingEvents' rows live a minute), so the feed needs no trimming of its own.
 *
 * This process's own writes are told at once, as each commits (MysqlStore.update calls
 * {@link MysqlChangeFeed.committed}), and not again when the feed reads them. Another process's
 * write without events (none of the exchange's that others wait on) is not heard. A failed read
 * turns `live` false and every listener hears `resync` (followers read the store on a timer
 * meanwhile); so does the first read, which starts from the database's now.
 * @module
 */
import type { TaskNote, TaskNotifications } from '../../store.js'
import { sql, type Sql } from '../sql.js'

/** How often a listening process reads the feed: a note is heard ~POLL_MS / 2 after its commit, on average. */
export const POLL_MS = 25

/** How far back each read looks past the newest stamp seen: longer than any commit after its write's stamp takes. */
export const OVERLAP_MS = 300

const MAX_RETRY_MS = 5000

interface FeedRow {
  taskId: string
  version: number
  createdAt: Date
}

const feedSince = (since: Date): Sql => sql`SELECT "taskId", "version", "createdAt" FROM "A2ATaskEvent" WHERE "createdAt" >= ${since} ORDER BY "createdAt"`

const databaseNow = sql`SELECT UTC_TIMESTAMP(3) AS "now"`

export class MysqlChangeFeed implements TaskNotifications {
  readonly #listeners = new Set<(note: TaskNote) => void>()
  readonly #read: <R>(statement: Sql) => Promise<R[]>
  readonly #onLost: (error: Error) => void
  /** Notes told, by `version:taskId`, with their stamps: forgotten once out of every read's window. */
  readonly #told = new Map<string, number>()
  #newest = 0
  #live = false
  #timer: NodeJS.Timeout | undefined
  #retryMs = POLL_MS
  /** This process's writes told already, by `version:taskId`, with when: the feed skips them. */
  readonly #toldHere = new Map<string, number>()
  /** Bumped when the last listener leaves: a read in flight then tells no one. */
  #epoch = 0

  /** `read` runs a statement on the store's pool. */
  constructor(read: <R>(statement: Sql) => Promise<R[]>, onLost: (error: Error) => void) {
    this.#read = read
    this.#onLost = onLost
  }

  get live(): boolean {
    return this.#live
  }

  listen(listener: (note: TaskNote) => void): () => void {
    this.#listeners.add(listener)
    if (this.#listeners.size === 1) this.#schedule(0)
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) this.close()
    }
  }

  /** Tells the listeners of this process's write that made `version`, once it committed. */
  committed(taskId: string, version: number): void {
    if (this.#listeners.size === 0) return
    const now = Date.now()
    // Kept past any read's window, then forgotten: filled in time order, so the oldest go first.
    for (const [key, at] of this.#toldHere) {
      if (at >= now - 10 * OVERLAP_MS) break
      this.#toldHere.delete(key)
    }
    this.#toldHere.set(`${version}:${taskId}`, now)
    this.#emit({ taskId, version })
  }

  /** Stops reading (the store's close calls it). */
  close(): void {
    this.#epoch++
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#live = false
    this.#newest = 0
    this.#told.clear()
    this.#toldHere.clear()
  }

  #schedule(ms: number): void {
    const epoch = this.#epoch
    this.#timer = setTimeout(() => void this.#poll(epoch), ms)
    this.#timer.unref()
  }

  async #poll(epoch: number): Promise<void> {
    try {
      if (!this.#live) {
        const [row] = await this.#read<{ now: Date }>(databaseNow)
        if (epoch !== this.#epoch) return
        // Writes before now are the store's to read: listeners resync.
        this.#newest = row!.now.getTime()
        this.#live = true
        this.#retryMs = POLL_MS
        this.#emit({ resync: true })
      }
      const since = this.#newest - OVERLAP_MS
      const rows = await this.#read<FeedRow>(feedSince(new Date(since)))
      if (epoch !== this.#epoch) return
      // Filled in the feed's time order, so the oldest go first.
      for (const [key, stamp] of this.#told) {
        if (stamp >= since) break
        this.#told.delete(key)
      }
      for (const row of rows) {
        const key = `${row.version}:${row.taskId}`
        const stamp = row.createdAt.getTime()
        if (stamp > this.#newest) this.#newest = stamp
        if (this.#told.has(key)) continue
        this.#told.set(key, stamp)
        if (this.#toldHere.has(key)) continue
        this.#emit({ taskId: row.taskId, version: row.version })
      }
      this.#schedule(POLL_MS)
    } catch (error) {
      if (epoch !== this.#epoch) return
      this.#onLost(error as Error)
      if (this.#live) this.#emit({ resync: true })
      this.#live = false
      this.#schedule(this.#retryMs)
      this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS)
    }
  }

  #emit(note: TaskNote): void {
    for (const listener of [...this.#listeners]) listener(note)
  }
}
