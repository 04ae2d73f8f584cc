/**
 * `@a2a-agent/runtime/prisma`: the task store on an app's Prisma client. The app's schema must
 * include the models `a2a generate entities` writes to prisma/a2a.prisma; the store takes the
 * generated `PrismaClient` as it is (SQLite or PostgreSQL, through any driver adapter).
 *
 * @example
 * ```ts
 * import { PrismaStore, prepareSqlite } from '@a2a-agent/runtime/prisma'
 *
 * const db = createDb() // the app's PrismaClient
 * await prepareSqlite(db) // SQLite only: WAL and a busy timeout
 * const exchange = createExchange({ store: new PrismaStore(db), ... })
 * ```
 * @module
 */
export { PrismaStore } from './store/prisma/prisma-store.js'
/**
 * The same store (same tables, same SQL, rows PrismaStore and the app's Prisma models read as
 * their own) on a better-sqlite3 connection of its own to the app's SQLite database FILE: about
 * 3.5× PrismaStore's SendMessage rate and 2× its GetTask rate in bench/stores.bench.ts (Prisma's
 * client adds ~140 µs per statement; what is left is mostly SQLite's own commits).
 *
 * Use it for SQLite file databases; keep PrismaStore for PostgreSQL and for an in-memory SQLite
 * database, which a second connection cannot share. It puts the file in WAL mode, which it needs
 * so that the app's connection and its own read without waiting for each other's writes; a write
 * waits (retrying, never blocking the thread) while the app's client holds a write transaction,
 * up to `busyTimeoutMs`. It needs the optional peer dependency better-sqlite3, which Prisma's
 * better-sqlite3 adapter already brings.
 *
 * @example
 * ```ts
 * const store = new SqliteStore('file:./dev.db') // the URL the app's Prisma adapter opens
 * const exchange = createExchange({ store, ... })
 * process.once('SIGTERM', () => store.close())
 * ```
 */
export { SqliteStore, type SqliteStoreOptions } from './store/sql/sqlite/sqlite-store.js'
/**
 * The same store on a node-postgres pool of its own to the app's PostgreSQL database: named
 * prepared statements, one round trip for most writes, no Prisma client in between (see
 * bench/stores.bench.ts for its rates beside PrismaStore's). Its pool survives connections cut by
 * the server: reads and guarded writes are retried once on a fresh connection. It needs the
 * optional peer dependency pg, which Prisma's PostgreSQL adapter already brings.
 *
 * @example
 * ```ts
 * const store = new PostgresStore(process.env.DATABASE_URL!, { max: postgresPoolSize() })
 * const exchange = createExchange({ store, ... })
 * process.once('SIGTERM', () => store.close())
 * ```
 */
export { PostgresStore, type PostgresStoreOptions } from './store/sql/postgres/postgres-store.js'
export { isConnectionLoss } from './store/sql/postgres/executor.js'
/**
 * The same store on a `mariadb` connector pool of its own to the app's MySQL 8 or MariaDB
 * database: statements pipelined, the writes of one turn in one commit, no Prisma client in
 * between. Across replicas it claims messages by unique keys, counts limits in A2ALimitEntry and
 * hears other replicas' writes by polling the kept events every 25 ms (MySQL has no
 * LISTEN/NOTIFY). It needs the optional peer dependency mariadb, which Prisma's MariaDB adapter
 * already brings.
 *
 * @example
 * ```ts
 * const store = new MysqlStore(process.env.DATABASE_URL!) // mysql://user:password@host:3306/app
 * const exchange = createExchange({ store, ... })
 * process.once('SIGTERM', () => store.close())
 * ```
 */
export { MysqlStore, type MysqlStoreOptions } from './store/sql/mysql/mysql-store.js'
export { isMysqlConnectionLoss } from './store/sql/mysql/connection-loss.js'
/** Whether a store failure means the database is out of reach for now (answered -31503, HTTP 503 with Retry-After). */
export { isStoreUnavailable } from './store/unavailable.js'
/**
 * What a SqliteStore, PostgresStore or MysqlStore reports when the database lacks tables or columns it uses
 * (`missing`): the app's prisma/a2a.prisma and migrations are older than its runtime.
 */
export { TaskStoreSchemaError } from './store/sql/schema-check.js'
export { prepareSqlite } from './store/prisma/prepare-sqlite.js'
export { DEFAULT_POOL_SIZE, databasePoolSize, guardPool, postgresPoolSize, type ErrorEmitter } from './store/sql/postgres/pool.js'
export { exportUser, eraseUser } from './auth/user-data.js'
export type { PrismaUserDataClient, UserErasure, UserExport } from './auth/user-data.js'
export { apiKeyResolver, createApiKey, listApiKeys, revokeApiKey } from './auth/api-keys.js'
export type { ApiKeyInfo, ApiKeyResolverOptions, ApiKeyRow, NewApiKey, PrismaApiKeyClient } from './auth/api-keys.js'
export type { Delegate, PrismaTaskClient, PrismaTaskModels, PushConfigRow, RawQueryClient, TaskMessageRow, TaskRow } from './store/prisma/client.js'
/** One-time sign-in links to the inbox (`a2a inbox-link`), kept as hashes in the app's database; the pages are `@a2a-agent/runtime/inbox`. */
export { inboxLinkUrl, mintInboxLink } from './inbox/tokens.js'
export { prismaInboxTokens, type PrismaInboxTokenClient } from './inbox/prisma-tokens.js'
