/**
 * The task store on an app's Prisma client, over the models `a2a generate entities` writes to
 * prisma/a2a.prisma (A2ATask, A2ATaskMessage, A2APushConfig). Its logic is sql-store.ts; its
 * statements go as raw SQL through the client (see raw.ts for why).
 *
 * Provider notes. SQLite: Prisma's better-sqlite3 adapter serves every query on one connection,
 * so call {@link prepareSqlite} once, and expect reads to see other transactions' uncommitted
 * writes (SqliteStore, on a connection of its own, is the faster choice there). PostgreSQL: text
 * and jsonb refuse U+0000, so a task or id holding it fails to store; tables outside `public` need
 * the schema on the connection's search_path (see raw.ts). MySQL/MariaDB (@prisma/adapter-mariadb):
 * the statements go in MySQL's syntax (sql/dialect.ts); its default collation,
 * utf8mb4_unicode_ci, compares ids and message ids case-insensitively.
 * @module
 */
import type { PrismaTaskClient } from './client.js'
import { PrismaExecutor } from './prisma-executor.js'
// biome-ignore lint/correctness/noUnusedImports: the module comment links to it
import type { prepareSqlite } from './prepare-sqlite.js'
import { SqlStore } from '../sql/sql-store.js'
import { assertSchema, foundColumns, SchemaCheckedExecutor, TASK_STORE_SCHEMA } from '../sql/schema-check.js'

export class PrismaStore extends SqlStore {
  readonly #checked: SchemaCheckedExecutor

  /** `db`: the app's PrismaClient, generated from a schema that includes prisma/a2a.prisma. */
  constructor(db: PrismaTaskClient) {
    const executor = new PrismaExecutor(db)
    const checked = new SchemaCheckedExecutor(executor, async () => assertSchema('PrismaStore', TASK_STORE_SCHEMA, await foundColumns(executor, TASK_STORE_SCHEMA)))
    super(checked)
    this.#checked = checked
  }

  /** As PostgresStore's ready(): resolves once the database has every table and column the store uses. */
  ready(): Promise<void> {
    return this.#checked.ready()
  }
}
