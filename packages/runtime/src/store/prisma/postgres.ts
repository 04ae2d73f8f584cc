/**
 * PostgreSQL settings for the app's Prisma client, which a PrismaStore shares with request handlers.
 * @module
 */

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
