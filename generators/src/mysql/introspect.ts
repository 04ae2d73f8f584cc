/**
 * The live MySQL/MariaDB database's tables, read from information_schema into a {@link DbSchema}.
 * Takes a query function rather than a driver, so the caller picks the connection.
 * @module
 */
import { currentTimestamp, type DbColumn, type DbForeignKey, type DbIndex, type DbSchema, type DbTable, normalizeType } from './schema.js'

/** Runs one statement with `?` parameters and resolves to its rows. */
export type Query = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>

/** Prisma's migration history table: never part of the app's schema. */
export const MIGRATIONS_TABLE = '_prisma_migrations'

/**
 * Tables the runtime creates on start in the app's database, as pg-boss does its schema on
 * PostgreSQL: never part of the app's schema, so no migration drops or reports them. `a2a_jobs` is
 * MysqlJobQueue's (@a2a-agent/runtime/mysql-jobs), `a2a_push_outbox` MysqlPushOutbox's
 * (@a2a-agent/runtime/mysql-push-outbox). Written out, as the generators do not import the runtime:
 * a runtime test (jobs/mysql-job-queue.test.ts) holds them to its MYSQL_JOBS_TABLE and MYSQL_OUTBOX_TABLE.
 */
export const RUNTIME_TABLES: readonly string[] = [MIGRATIONS_TABLE, 'a2a_jobs', 'a2a_push_outbox']

// Column names upper-cased with AS: MySQL 8 returns information_schema columns upper-case, MariaDB as written.
const COLUMNS = `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS def, EXTRA AS extra
  FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`
const TABLES = `SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`
const INDEXES = `SELECT TABLE_NAME AS t, INDEX_NAME AS name, NON_UNIQUE AS nonUnique, COLUMN_NAME AS c, SUB_PART AS length, INDEX_TYPE AS kind
  FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`
const FOREIGN_KEYS = `SELECT k.TABLE_NAME AS t, k.CONSTRAINT_NAME AS name, k.COLUMN_NAME AS c, k.REFERENCED_TABLE_NAME AS rt, k.REFERENCED_COLUMN_NAME AS rc,
    r.DELETE_RULE AS onDelete, r.UPDATE_RULE AS onUpdate
  FROM information_schema.KEY_COLUMN_USAGE k
  JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
  WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME IS NOT NULL ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`

/** Every base table of the connection's current database but {@link RUNTIME_TABLES}. */
export async function introspect(query: Query): Promise<DbSchema> {
  const [version] = await query('SELECT VERSION() AS v')
  const mariadb = /mariadb/i.test(String(version?.v))
  const tables = new Map<string, DbTable>()
  for (const row of await query(TABLES)) {
    const name = String(row.t)
    if (!RUNTIME_TABLES.includes(name)) tables.set(name, { name, columns: [], primaryKey: [], indexes: [], foreignKeys: [] })
  }
  for (const row of await query(COLUMNS)) {
    const table = tables.get(String(row.t))
    if (!table) continue
    const type = normalizeType(String(row.type))
    const extra = String(row.extra ?? '').toLowerCase()
    const defaultValue = canonicalDefault(row.def === null || row.def === undefined ? undefined : String(row.def), extra, mariadb)
    const column: DbColumn = {
      name: String(row.c),
      type,
      nullable: row.nullable === 'YES',
      ...(defaultValue !== undefined && { default: defaultValue }),
      autoIncrement: extra.includes('auto_increment'),
    }
    table.columns.push(column)
  }
  for (const row of await query(FOREIGN_KEYS)) {
    const table = tables.get(String(row.t))
    if (!table) continue
    let key = table.foreignKeys.find((candidate) => candidate.name === row.name)
    if (!key) {
      key = {
        name: String(row.name),
        columns: [],
        referencedTable: String(row.rt),
        referencedColumns: [],
        onDelete: String(row.onDelete),
        onUpdate: String(row.onUpdate),
      } satisfies DbForeignKey
      table.foreignKeys.push(key)
    }
    key.columns.push(String(row.c))
    key.referencedColumns.push(String(row.rc))
  }
  for (const row of await query(INDEXES)) {
    const table = tables.get(String(row.t))
    if (!table) continue
    const name = String(row.name)
    if (name === 'PRIMARY') {
      table.primaryKey.push(String(row.c))
      continue
    }
    let index = table.indexes.find((candidate) => candidate.name === name)
    if (!index) {
      const kind = String(row.kind).toUpperCase() === 'FULLTEXT' ? 'fulltext' : Number(row.nonUnique) === 0 ? 'unique' : 'normal'
      index = { name, kind, columns: [] } satisfies DbIndex
      table.indexes.push(index)
    }
    index.columns.push({ name: String(row.c), ...(row.length !== null && row.length !== undefined && { length: Number(row.length) }) })
  }
  // The index InnoDB adds by itself for a foreign key with none to use carries the key's name; it
  // comes and goes with the key, so it is not part of the schema.
  for (const table of tables.values()) {
    const keys = new Set(table.foreignKeys.map((key) => key.name))
    table.indexes = table.indexes.filter((index) => !keys.has(index.name))
  }
  return { tables: [...tables.values()] }
}

/**
 * information_schema's COLUMN_DEFAULT in the spelling {@link targetSchema} uses. MariaDB quotes
 * literals (`'abc'`) and says `NULL` for a null default; MySQL 8 leaves literals bare and marks
 * expressions with DEFAULT_GENERATED.
 */
function canonicalDefault(raw: string | undefined, extra: string, mariadb: boolean): string | undefined {
  if (raw === undefined) return undefined
  const timestamp = /^current_timestamp(?:\((\d*)\))?$/i.exec(raw)
  if (timestamp) return currentTimestamp(timestamp[1])
  if (mariadb) {
    if (raw === 'NULL') return undefined
    if (raw.startsWith("'") && raw.endsWith("'")) return raw.slice(1, -1).replaceAll("''", "'").replaceAll('\\\\', '\\')
    return /^-?[\d.]+(e[-+]?\d+)?$/i.test(raw) ? raw : `expr:${raw}`
  }
  if (extra.includes('default_generated')) return `expr:${raw.replace(/^\((.*)\)$/s, '$1')}`
  return raw
}
