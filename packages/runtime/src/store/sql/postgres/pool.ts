/**
 * PostgreSQL settings and pools for the app's Prisma client (which a PrismaStore shares with
 * request handlers) and for PostgresStore.
 * @module
 */
import { createRequire } from 'node:module'
import { consoleLogger, scrub } from '../../../log/logger.js'

/** node-postgres's own default: enough for one process on a small database server. */
export const DEFAULT_POOL_SIZE = 10

/** A pool above this is more likely a typo than a plan (PostgreSQL's default max_connections is 100). */
const MAX_POOL_SIZE = 1000

/**
 * The connection-pool size from DATABASE_POOL_SIZE (default {@link DEFAULT_POOL_SIZE}): the most
 * connections one process opens. Size it so every process of the app together stays under the
 * server's max_connections. A value that is not a whole number from 1 to 1000 is refused by name.
 *
 * @example
 * ```ts
 * new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: postgresPoolSize() }) })
 * ```
 */
export function postgresPoolSize(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.DATABASE_POOL_SIZE?.trim()
  if (!raw) return DEFAULT_POOL_SIZE
  const size = Number(raw)
  if (!/^\d+$/.test(raw) || size < 1 || size > MAX_POOL_SIZE) {
    throw new Error(
      `DATABASE_POOL_SIZE must be a whole number of connections from 1 to ${MAX_POOL_SIZE}, got ${JSON.stringify(env.DATABASE_POOL_SIZE)}; unset it for the default of ${DEFAULT_POOL_SIZE}`,
    )
  }
  return size
}

/** {@link postgresPoolSize} under the name MySQL apps read: `DATABASE_POOL_SIZE` sizes any database's pool. */
export const databasePoolSize = postgresPoolSize

/** The part of a pg Pool (or Client) {@link guardPool} needs. */
export interface ErrorEmitter {
  on(event: string, listener: (...args: any[]) => void): unknown
}

/**
 * Makes a node-postgres pool safe from connection loss, and returns it: the pool and every
 * connection it opens listen for `error` for their whole life, so a backend terminated by a
 * failover, a restart or an operator between two queries (even while a transaction holds the
 * connection) is logged (`onConnectionError`, default a line on stderr at most every 10 s) and
 * replaced at the next query, never an unhandled error event that stops the process.
 *
 * @example
 * ```ts
 * new PrismaClient({ adapter: new PrismaPg(guardPool(new pg.Pool({ connectionString: url, max: postgresPoolSize() }))) })
 * ```
 */
export function guardPool<P extends ErrorEmitter>(pool: P, onConnectionError: (error: Error) => void = throttledLog('a PostgreSQL connection of the app was lost')): P {
  pool.on('error', onConnectionError)
  pool.on('connect', (client: ErrorEmitter) =>
    client.on('error', (error: Error) => {
      onConnectionError(error)
      reclaimLater(client as PooledClient, error)
    }),
  )
  pool.on('acquire', (client: PooledClient) => (client[CHECKED_OUT] = true))
  pool.on('release', (_error: unknown, client: PooledClient) => (client[CHECKED_OUT] = false))
  return pool
}

const CHECKED_OUT = Symbol('a2a.checkedOut')

/** Time a holder of a dead connection gets to release it itself. */
const RECLAIM_AFTER_MS = 2000

interface PooledClient extends ErrorEmitter {
  [CHECKED_OUT]?: boolean
  release?: (error?: Error) => void
}

/**
 * A connection that died while checked out, and is still out after a moment, goes back to the
 * pool as broken (destroyed, its slot freed). Prisma's driver adapter can keep a transaction's
 * connection forever when the server cuts it mid-transaction; ten such leaks starved the pool
 * and every later request waited for a connection without end. The holder's own late release
 * becomes a no-op.
 */
function reclaimLater(client: PooledClient, error: Error): void {
  setTimeout(() => {
    const release = client.release
    if (!client[CHECKED_OUT] || !release) return
    client.release = () => {}
    release(error)
  }, RECLAIM_AFTER_MS).unref()
}

/** `pg`, loaded from wherever the app has it; named when missing. */
export function loadPg(): PgModule {
  try {
    return createRequire(import.meta.url)('pg') as PgModule
  } catch (error) {
    throw new Error('PostgreSQL needs the pg package: npm install pg', { cause: error })
  }
}

export interface PgModule {
  Pool: new (config: Record<string, unknown>) => ErrorEmitter & Record<string, any>
  Client: new (config: Record<string, unknown>) => ErrorEmitter & Record<string, any>
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown }
}

/** One error line (the runtime's logger) per 10 s at most: a failover cuts every connection of a pool at once. */
export function throttledLog(what: string, recovery = 'the pool opens a new one at the next query'): (error: Error) => void {
  let quietUntil = 0
  let missed = 0
  return (error) => {
    if (Date.now() < quietUntil) return void missed++
    const more = missed > 0 ? ` (and ${missed} more since the last report)` : ''
    consoleLogger.error(`a2a: ${what}: ${scrub(error.message)}${more}; ${recovery}`)
    quietUntil = Date.now() + 10_000
    missed = 0
  }
}
