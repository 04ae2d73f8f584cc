import { MysqlStore, PostgresStore, SqliteStore, databasePoolSize, guardPool, postgresPoolSize } from '@a2a-agent/runtime/prisma'
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaMariaDb } from '@prisma/adapter-mariadb'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaClient as MysqlClient } from './generated/mysql/client.js'
import { PrismaClient as PostgresqlClient } from './generated/postgresql/client.js'
import { PrismaClient } from './generated/prisma/client.js'

/**
 * The app's database client; generated entity code is typed against it. It is the SQLite client's
 * type: the PostgreSQL and MySQL clients (from prisma-postgresql/, prisma-mysql/) have the same models and calls, but Prisma
 * types each provider's client apart (isolation levels, case-insensitive filters).
 */
export type Db = PrismaClient

/** The database `url` names: a `postgresql://` (or `postgres://`) URL, or else a SQLite `file:` URL. */
export function isPostgresql(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url)
}

/** A `mysql://` (or `mariadb://`) URL: MySQL 8 or MariaDB. */
export function isMysql(url: string): boolean {
  return /^(mysql|mariadb):\/\//.test(url)
}

/**
 * A client on `url` through its driver adapter: node-postgres for PostgreSQL, mariadb for MySQL
 * and MariaDB (at most DATABASE_POOL_SIZE connections, default 10), better-sqlite3 for SQLite.
 */
export function createDb(url = process.env.DATABASE_URL ?? 'file:./dev.db'): Db {
  // A connection the server cuts (a failover, a restart) is logged and replaced, never an unhandled error.
  if (isPostgresql(url))
    return new PostgresqlClient({
      adapter: new PrismaPg(guardPool(new pg.Pool({ connectionString: url, max: postgresPoolSize() })), { disposeExternalPool: true }),
    }) as unknown as Db
  if (isMysql(url)) {
    const config = new URL(url.replace(/^mysql:/, 'mariadb:'))
    config.searchParams.set('connectionLimit', String(databasePoolSize()))
    return new MysqlClient({ adapter: new PrismaMariaDb(config.href) }) as unknown as Db
  }
  return new PrismaClient({ adapter: new PrismaBetterSQLite3({ url }) })
}

/**
 * The A2A task store on the same database through a connection of its own: a node-postgres or
 * mariadb pool (at most DATABASE_POOL_SIZE connections too) or a better-sqlite3 connection to the
 * file. Several times faster than through the Prisma client, with the same tables.
 */
export function createStore(url = process.env.DATABASE_URL ?? 'file:./dev.db'): PostgresStore | MysqlStore | SqliteStore {
  if (isMysql(url)) return new MysqlStore(url, { max: databasePoolSize() })
  return isPostgresql(url) ? new PostgresStore(url, { max: postgresPoolSize() }) : new SqliteStore(url)
}
