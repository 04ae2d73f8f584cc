/**
 * SqliteStore's durability without an fsync on the event loop's thread. Its connection commits
 * with synchronous=NORMAL (in WAL mode: the commit writes the WAL, the OS holds it, nothing is
 * synced), and a write is acknowledged only once an fdatasync of the WAL file that started after
 * its commit has finished, on libuv's thread pool. So an acknowledged write is on disk as with
 * synchronous=FULL, while the thread serves requests during the sync, and one sync covers every
 * commit made before it started: under load a few syncs per second instead of one per commit.
 *
 * SQLite keeps the file consistent under NORMAL either way: it syncs the WAL before each
 * checkpoint copies it into the database, and the database after. A read of this connection is
 * answered only once the commits it could see are synced too, so nothing this store answers can
 * vanish at a power loss; another connection (the app's Prisma client) may read a commit up to
 * one sync (well under a millisecond on most disks) before it is durable.
 * @module
 */
import { closeSync, fdatasyncSync, openSync } from 'node:fs'
import { open, stat, type FileHandle } from 'node:fs/promises'

interface Waiter {
  /** The commit it waits for: resolved once a sync covering it finished. */
  commit: number
  resolve(): void
  reject(error: unknown): void
}

/** Flushes a file's data to disk (fs's fdatasync by default). */
export type DataSync = (file: FileHandle) => Promise<void>

export class WalSync {
  readonly #path: string
  readonly #dataSync: DataSync
  /** Commits so far, and the last one a finished sync covered. */
  #commits = 0
  #synced = 0
  #waiting: Waiter[] = []
  #running = false
  #file: { handle: FileHandle; ino: number } | undefined
  #closed = false
  /** What close()'s own sync failed with, if it did. */
  #closeFailure: unknown

  /** `walPath`: the database file's `-wal` file. */
  constructor(walPath: string, dataSync: DataSync = (file) => file.datasync()) {
    this.#path = walPath
    this.#dataSync = dataSync
  }

  /** Call after each commit of the connection. */
  committed(): void {
    this.#commits++
  }

  /**
   * Resolves once every commit made so far is on disk; undefined when it already is (no wait, not
   * even a microtask). Rejects when the sync failed: the commits happened, but may not survive a power loss.
   */
  durable(): Promise<void> | undefined {
    if (this.#synced >= this.#commits) return undefined
    return new Promise((resolve, reject) => {
      this.#waiting.push({ commit: this.#commits, resolve, reject })
      if (!this.#running) void this.#run()
    })
  }

  async #run(): Promise<void> {
    this.#running = true
    try {
      while (this.#waiting.length > 0) {
        // Every commit made before this sync starts is covered by it.
        const covered = this.#commits
        const waiting: Waiter[] = []
        // Those that came during the last sync for commits it covered are answered now.
        for (const waiter of this.#waiting)
          if (waiter.commit <= this.#synced) waiter.resolve()
          else waiting.push(waiter)
        this.#waiting = []
        if (waiting.length === 0) continue
        try {
          await this.#sync()
          this.#synced = Math.max(this.#synced, covered)
          for (const waiter of waiting) waiter.resolve()
        } catch (error) {
          for (const waiter of waiting) waiter.reject(this.#failed(error))
        }
      }
    } finally {
      this.#running = false
    }
  }

  async #sync(): Promise<void> {
    // close() synced what was committed before it.
    if (this.#closed) {
      if (this.#closeFailure !== undefined) throw this.#closeFailure
      return
    }
    // SQLite recreates the WAL after it removed it (the last connection closed, or another
    // switched the journal mode): sync the file the path names now.
    const now = await stat(this.#path).catch((error: NodeJS.ErrnoException) => {
      // No WAL: SQLite synced its content into the database before removing it.
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (!now) return
    if (this.#file?.ino !== now.ino) {
      await this.#file?.handle.close().catch(() => undefined)
      this.#file = undefined
      const handle = await open(this.#path, 'r+')
      this.#file = { handle, ino: (await handle.stat()).ino }
    }
    await this.#dataSync(this.#file.handle)
  }

  #failed(error: unknown): Error {
    return new Error(`SQLite WAL file ${this.#path} could not be synced to disk: the write committed, but may not survive a power loss`, { cause: error })
  }

  /**
   * Syncs what is committed and not yet synced, here and now (the store's connection is closing,
   * and the app's may keep the WAL open unsynced), answers every waiter, and closes the WAL file.
   */
  close(): void {
    this.#closed = true
    if (this.#synced < this.#commits) {
      try {
        const fd = openSync(this.#path, 'r+')
        try {
          fdatasyncSync(fd)
        } finally {
          closeSync(fd)
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#closeFailure = error
      }
    }
    this.#synced = this.#commits
    const waiting = this.#waiting
    this.#waiting = []
    for (const waiter of waiting) this.#closeFailure === undefined ? waiter.resolve() : waiter.reject(this.#failed(this.#closeFailure))
    void this.#file?.handle.close().catch(() => undefined)
    this.#file = undefined
  }
}
