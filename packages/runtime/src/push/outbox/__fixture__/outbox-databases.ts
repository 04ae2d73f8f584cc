/**
 * The push outbox of each database, for tests that run the same on both: PushOutbox on
 * PostgreSQL, MysqlPushOutbox on MariaDB (or MySQL), with the native store that writes the rows
 * with its task writes, and rows written straight into the table as a crashed replica leaves them.
 */
import { onMysql, onPostgres, type Provider } from '../../../store/prisma/__fixture__/databases.js'
import { DATABASE_MS as NOW } from '../../../store/sql/mysql/clock.js'
import { MysqlStore } from '../../../store/sql/mysql/mysql-store.js'
import { PostgresStore } from '../../../store/sql/postgres/postgres-store.js'
import { MysqlPushOutbox } from '../mysql-push-outbox.js'
import type { Outbox, OutboxOptions } from '../outbox.js'
import { PushOutbox } from '../push-outbox.js'

/** A row as a replica left it a minute ago: its wake-up lost, or (`leaseLapsedMs`) leased and its lease out. */
export interface LeftRow {
  taskId: string
  configId?: string
  version: number
  url: string
  body: unknown
  leaseLapsedMs?: number
}

export interface OutboxDatabase {
  provider: Extract<Provider, 'postgres' | 'mysql'>
  /** The outbox's class, as test names say it. */
  name: string
  outbox(url: string, options?: OutboxOptions): Outbox
  /** What the outbox gives the store's queuePushOutbox. */
  outboxName: string
  /** The database's native store, which writes the outbox rows with its task writes. */
  store(url: string, max: number): PostgresStore | MysqlStore
  leave(url: string, rows: readonly LeftRow[]): Promise<void>
  /** How many rows wait to be delivered. */
  pending(url: string): Promise<number>
  /** The task's rows, in version order: each one's state and the attempts it counts. */
  rowsOf(url: string, taskId: string): Promise<{ version: number; state: string; attempts: number }[]>
  /** The outbox's tables in the database. */
  tables(url: string): Promise<string[]>
  /** Makes outboxes on a fresh table (round: a number of its own). */
  fresh(url: string, round: number): Promise<(options: OutboxOptions) => Outbox>
  /** Options it refuses, and its words for each. */
  refused: { options: () => Outbox; error: RegExp }[]
}

export const POSTGRES_OUTBOX: OutboxDatabase = {
  provider: 'postgres',
  name: 'PushOutbox (PostgreSQL)',
  outbox: (url, options) => new PushOutbox({ connectionString: url, ...options }),
  outboxName: 'a2a_push',
  store: (url, max) => new PostgresStore(url, { max }),
  leave: (url, rows) =>
    onPostgres(url, async (client) => {
      for (const row of rows) {
        await client.query(
          `INSERT INTO a2a_push.outbox (task_id, config_id, owner, version, target, body, lease_until, updated_at)
            VALUES ($1, $2, 'alice', $3, $4, $5, $6, now() - interval '1 minute')`,
          [row.taskId, row.configId ?? 'c1', row.version, { url: row.url }, row.body, row.leaseLapsedMs === undefined ? null : new Date(Date.now() - row.leaseLapsedMs)],
        )
      }
    }),
  pending: (url) => onPostgres(url, async (client) => Number((await client.query(`SELECT count(*) AS n FROM a2a_push.outbox WHERE state = 'pending'`)).rows[0].n)),
  rowsOf: (url, taskId) =>
    onPostgres(url, async (client) => (await client.query(`SELECT version, state, attempts FROM a2a_push.outbox WHERE task_id = $1 ORDER BY version, id`, [taskId])).rows),
  tables: (url) =>
    onPostgres(url, async (client) => {
      const { rows } = await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'a2a_push' AND table_name IN ('outbox', 'job') ORDER BY 1`)
      return rows.map((row) => row.table_name)
    }),
  fresh: async (url, round) => (options) => new PushOutbox({ connectionString: url, schema: `a2a_race_${round}`, ...options }),
  refused: [
    { options: () => new PushOutbox({ connectionString: 'postgresql://127.0.0.1/x', schema: 'Bad-Name' }), error: /lower-case SQL identifier/ },
    { options: () => new PushOutbox({}), error: /PushOutbox needs pool \(the app's pg Pool\) or connectionString/ },
  ],
}

export const MYSQL_OUTBOX: OutboxDatabase = {
  provider: 'mysql',
  name: 'MysqlPushOutbox (MariaDB)',
  outbox: (url, options) => new MysqlPushOutbox({ url, ...options }),
  outboxName: 'a2a_push_outbox',
  store: (url, max) => new MysqlStore(url, { max }),
  leave: (url, rows) =>
    onMysql(url, async (connection) => {
      for (const row of rows) {
        await connection.query(
          `INSERT INTO a2a_push_outbox (task_id, config_id, owner, version, target, body, lease_until, leased_by, due_at, created_at, updated_at)
            VALUES (?, ?, 'alice', ?, ?, ?, ${NOW} - ?, ?, ${NOW} - 60000, ${NOW} - 60000, ${NOW} - 60000)`,
          [
            row.taskId,
            row.configId ?? 'c1',
            row.version,
            JSON.stringify({ url: row.url }),
            JSON.stringify(row.body),
            row.leaseLapsedMs ?? null,
            row.leaseLapsedMs === undefined ? null : 'a-replica-that-died-0000000000000000',
          ],
        )
      }
    }),
  pending: (url) => onMysql(url, async (connection) => Number((await connection.query(`SELECT COUNT(*) AS n FROM a2a_push_outbox WHERE state = 'pending'`))[0].n)),
  rowsOf: (url, taskId) =>
    onMysql(url, async (connection) => await connection.query(`SELECT version, state, attempts FROM a2a_push_outbox WHERE task_id = ? ORDER BY version, id`, [taskId])),
  tables: (url) =>
    onMysql(url, async (connection) =>
      (
        (await connection.query(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'a2a_push%'`)) as { name: string }[]
      ).map((row) => row.name),
    ),
  fresh: async (url) => {
    await onMysql(url, (connection) => connection.query('DROP TABLE IF EXISTS a2a_push_outbox'))
    return (options) => new MysqlPushOutbox({ url, ...options })
  },
  refused: [
    {
      options: () => new MysqlPushOutbox({ url: 'postgresql://root:secret@127.0.0.1/app' }),
      error: /MysqlPushOutbox url must be a mysql:\/\/ or mariadb:\/\/ URL, e\.g\. mysql:\/\/root@127\.0\.0\.1:3306\/invoices; got one starting "postgresql:"/,
    },
    { options: () => new MysqlPushOutbox({ url: 'mysql://root@127.0.0.1:3306/' }), error: /MysqlPushOutbox needs the database in its URL/ },
    { options: () => new MysqlPushOutbox({}), error: /MysqlPushOutbox needs pool \(a mariadb pool\) or url/ },
  ],
}

export const OUTBOX_DATABASES: readonly OutboxDatabase[] = [POSTGRES_OUTBOX, MYSQL_OUTBOX]

/** The outbox of the database at `url`, by its scheme. */
export const outboxDatabaseOf = (url: string): OutboxDatabase => (/^(mysql|mariadb):/.test(url) ? MYSQL_OUTBOX : POSTGRES_OUTBOX)
