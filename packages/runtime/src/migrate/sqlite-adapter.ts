/**
 * The better-sqlite3 adapter as Prisma's CLI (the wasm schema engine) needs it: fixes for Prisma
 * 6.19 that every app would otherwise carry in its prisma.config.ts.
 * @module
 */
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'

/** How long a migration waits for the app's connection (`npm run dev`) to finish a write. */
const BUSY_TIMEOUT_MS = 10_000

// Prisma's own history table, exactly as `migrate deploy` creates it.
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`

type Adapter = Awaited<ReturnType<SqlMigrationAwareDriverAdapterFactory['connect']>>

/** The adapter factory for `url` (a `file:` URL, relative to the working folder). */
export async function sqliteMigrateAdapter(url: string): Promise<SqlMigrationAwareDriverAdapterFactory> {
  const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3')

  class SqliteForMigrate extends PrismaBetterSQLite3 {
    // P4: on a database without Prisma's history table (a new file), `migrate dev` and `migrate
    // status` stop at P1014 through this adapter; only `migrate deploy` creates it. Create it first.
    override async connect() {
      const adapter = shareTheFile(await super.connect(), url)
      await adapter.executeScript(MIGRATIONS_TABLE)
      return adapter
    }

    // P1: the engine sends whole migration scripts to the shadow database through a parameterless
    // executeRaw, which better-sqlite3 prepares as one statement; route those through executeScript.
    override async connectToShadowDb() {
      const adapter = await super.connectToShadowDb()
      const executeRaw = adapter.executeRaw.bind(adapter)
      adapter.executeRaw = async (query) => (query.args.length === 0 ? (await adapter.executeScript(query.sql), 0) : executeRaw(query))
      return adapter
    }
  }
  return new SqliteForMigrate({ url, timeout: BUSY_TIMEOUT_MS })
}

/**
 * P5: before applying migrations the engine sets `PRAGMA main.locking_mode=EXCLUSIVE`, which on a
 * WAL database (the app's, see prepareSqlite) waits for every other connection to close: with
 * `npm run dev` running, `migrate dev` failed with a wasm stack trace (SQLITE_BUSY arrives as an
 * error kind the engine cannot decode, "unknown variant `SocketTimeout`"). Skip that PRAGMA, so a
 * migration takes the ordinary write lock and the running app picks the new schema up; and when a
 * write lock still cannot be had, say so in a sentence (the engine prints only "External error").
 */
function shareTheFile(adapter: Adapter, url: string): Adapter {
  const executeRaw = adapter.executeRaw.bind(adapter)
  adapter.executeRaw = async (query) => (/^\s*PRAGMA\s+(main\.)?locking_mode\s*=\s*EXCLUSIVE\s*;?\s*$/i.test(query.sql) ? 0 : executeRaw(query))
  for (const method of ['queryRaw', 'executeRaw', 'executeScript'] as const) {
    const original = (adapter[method] as (...args: unknown[]) => Promise<unknown>).bind(adapter)
    ;(adapter as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      try {
        return await original(...args)
      } catch (error) {
        if (!isBusy(error)) throw error
        console.error(
          `${url} stayed locked for ${BUSY_TIMEOUT_MS / 1000} s: another process holds a write transaction on it. Let it finish (or stop it), then run the command again.`,
        )
        throw error
      }
    }
  }
  return adapter
}

function isBusy(error: unknown): boolean {
  const cause = (error as { cause?: { originalCode?: string } } | undefined)?.cause
  return /^SQLITE_BUSY/.test(cause?.originalCode ?? '')
}
