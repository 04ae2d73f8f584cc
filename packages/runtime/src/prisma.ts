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
export { prepareSqlite } from './store/prisma/sqlite.js'
export { DEFAULT_POOL_SIZE, postgresPoolSize } from './store/prisma/postgres.js'
export { exportUser, eraseUser } from './store/prisma/user-data.js'
export type { PrismaUserDataClient, UserErasure, UserExport } from './store/prisma/user-data.js'
export { apiKeyResolver, createApiKey, listApiKeys, revokeApiKey } from './auth/api-keys.js'
export type { ApiKeyInfo, ApiKeyResolverOptions, ApiKeyRow, NewApiKey, PrismaApiKeyClient } from './auth/api-keys.js'
export type { Delegate, PrismaTaskClient, PrismaTaskTransaction, PushConfigRow, RawQueryClient, TaskMessageRow, TaskRow } from './store/prisma/client.js'
