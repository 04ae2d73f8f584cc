/**
 * Connections to the MySQL/MariaDB server in DATABASE_URL, with the `mariadb` driver (the one
 * `@prisma/adapter-mariadb` already brings into every MySQL app; it speaks to MySQL 8 too). The
 * database is created when missing, as `prisma migrate dev` does on PostgreSQL.
 * @module
 */
import { randomBytes } from 'node:crypto'
import mariadb from 'mariadb'
import type { Query } from '@a2a-agent/generators/mysql'
import { quoteName } from '@a2a-agent/generators/mysql'
import { CliUserError } from '../cli/app-db.js'

export interface Server {
  host: string
  port: number
  user: string
  password: string
  /** The database the URL names. */
  database: string
  /** `host:port` for messages. */
  shown: string
}

/** A connection to one database: statements one at a time, or a whole migration script. */
export interface DatabaseConnection {
  database: string
  query: Query
  /** Runs a script of `;`-separated statements (a migration.sql). */
  script(sql: string): Promise<void>
  end(): Promise<void>
}

/** `mysql://user:password@host:port/database`; `mariadb://` is accepted as well. */
export function parseMysqlUrl(url: string): Server {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new CliUserError(`DATABASE_URL is not a URL ("${url}"); set it to mysql://user:password@host:3306/database`)
  }
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:') {
    throw new CliUserError(
      `DATABASE_URL names a ${parsed.protocol.replace(':', '')} database; a2a migrate is for MySQL/MariaDB (mysql://…). On SQLite and PostgreSQL use \`prisma migrate dev\` and \`prisma migrate deploy\``,
    )
  }
  const database = decodeURIComponent(parsed.pathname.slice(1))
  if (!database) throw new CliUserError(`DATABASE_URL names no database ("${url}"); add it to the path: mysql://user@${parsed.host || 'localhost:3306'}/my_app`)
  const port = Number(parsed.port || 3306)
  return {
    host: parsed.hostname || 'localhost',
    port,
    user: decodeURIComponent(parsed.username) || 'root',
    password: decodeURIComponent(parsed.password),
    database,
    shown: `${parsed.hostname}:${port}`,
  }
}

async function open(server: Server, database: string | undefined): Promise<DatabaseConnection> {
  let connection: mariadb.Connection
  try {
    connection = await mariadb.createConnection({
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      ...(database !== undefined && { database }),
      multipleStatements: true,
      // Dates and big numbers as the server prints them: the differ compares text.
      dateStrings: true,
      bigIntAsNumber: true,
      // MySQL 8's default caching_sha2_password without TLS needs the server's key.
      allowPublicKeyRetrieval: true,
      connectTimeout: 5000,
    })
  } catch (error) {
    throw new CliUserError(
      `cannot reach MySQL/MariaDB at ${server.shown} as ${server.user}: ${(error as Error).message}. Start the server, or set DATABASE_URL to one you can reach`,
    )
  }
  return {
    database: database ?? '',
    query: async (sql, params) => (await connection.query({ sql, rowsAsArray: false }, params)) as Record<string, unknown>[],
    script: async (sql) => {
      if (sql.trim() !== '') await connection.query(sql)
    },
    end: () => connection.end().catch(() => {}),
  }
}

/** Runs `fn` on a connection to `database` (none: the server only), ended afterwards. */
async function withOpen<T>(server: Server, database: string | undefined, fn: (db: DatabaseConnection) => Promise<T>): Promise<T> {
  const db = await open(server, database)
  try {
    return await fn(db)
  } finally {
    await db.end()
  }
}

/** Runs `fn` on a connection to the URL's database, ended afterwards. */
export function withConnection<T>(server: Server, fn: (db: DatabaseConnection) => Promise<T>): Promise<T> {
  return withOpen(server, server.database, fn)
}

/** Runs `fn` on a connection to the server without a database (to create and drop them), ended afterwards. */
export function withAdminConnection<T>(server: Server, fn: (admin: DatabaseConnection) => Promise<T>): Promise<T> {
  return withOpen(server, undefined, fn)
}

const CREATE_OPTIONS = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci'

/** Creates the URL's database when it is missing; resolves to whether it did. */
export function ensureDatabase(server: Server): Promise<boolean> {
  return withAdminConnection(server, async (admin) => {
    try {
      const found = await admin.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [server.database])
      if (found.length > 0) return false
      await admin.query(`CREATE DATABASE IF NOT EXISTS ${quoteName(server.database)} ${CREATE_OPTIONS}`)
      return true
    } catch (error) {
      throw new CliUserError(
        `${server.database} does not exist on ${server.shown}, and creating it failed: ${(error as Error).message}. Create it (CREATE DATABASE \`${server.database}\`), or grant ${server.user} CREATE`,
      )
    }
  })
}

/** Drops and recreates the URL's database: every table and row in it is gone. */
export function recreateDatabase(server: Server): Promise<void> {
  return withAdminConnection(server, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteName(server.database)}`)
    await admin.query(`CREATE DATABASE ${quoteName(server.database)} ${CREATE_OPTIONS}`)
  })
}

/**
 * Runs `fn` on a fresh, empty database beside the app's (Prisma's shadow database: where the
 * migration history is replayed to learn what it builds), dropped afterwards.
 */
export function withShadowDatabase<T>(server: Server, fn: (shadow: DatabaseConnection) => Promise<T>): Promise<T> {
  const name = `${server.database.slice(0, 40)}_shadow_${randomBytes(6).toString('hex')}`
  return withAdminConnection(server, async (admin) => {
    await admin.query(`CREATE DATABASE ${quoteName(name)} ${CREATE_OPTIONS}`).catch((error: unknown) => {
      throw new CliUserError(
        `creating the shadow database ${name} on ${server.shown} failed: ${(error as Error).message}. a2a migrate dev replays the migrations there to check them; grant ${server.user} CREATE and DROP`,
      )
    })
    try {
      return await withOpen(server, name, fn)
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteName(name)}`).catch(() => {})
    }
  })
}
