/**
 * SQLite settings for a Prisma client that a PrismaStore shares with request handlers.
 * @module
 */
import type { RawQueryClient } from './client.js'

/**
 * Puts a file-backed SQLite database in WAL mode, so readers do not wait for a writer and commits
 * cost less, and gives every connection a 5 s busy timeout, so a writer waits for a lock rather
 * than failing at once with SQLITE_BUSY. Call it once after creating the client, before serving:
 * the journal mode is kept in the file, the busy timeout is per connection (Prisma's
 * better-sqlite3 adapter keeps one). These are the app's database settings; the store does not
 * apply them itself. An in-memory database stays in `memory` journal mode.
 *
 * @example
 * ```ts
 * const db = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: 'file:./dev.db' }) })
 * await prepareSqlite(db)
 * const store = new PrismaStore(db)
 * ```
 */
export async function prepareSqlite(db: RawQueryClient): Promise<void> {
  // Both PRAGMAs answer with a row, which Prisma's executeRaw refuses on SQLite: query them.
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL')
  await db.$queryRawUnsafe('PRAGMA busy_timeout = 5000')
}
