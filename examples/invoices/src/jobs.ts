import { SqliteJobQueue } from '@a2a-agent/runtime'
import type { MysqlJobQueue } from '@a2a-agent/runtime/mysql-jobs'
import type { PgBossJobQueue } from '@a2a-agent/runtime/pg-boss-jobs'
import { isMysql, isPostgresql } from './db.js'

/**
 * The job queue on the app's database, its driver loaded only there: pg-boss's tables (schema
 * a2a_jobs) in PostgreSQL; a table a2a_jobs in MySQL/MariaDB (created on start; `a2a migrate`
 * leaves it out of the app's schema); on SQLite a file of its own beside the database (dev.db →
 * dev.jobs.db), kept apart so the app's migrations never meet a table they do not know.
 */
export async function jobQueue(databaseUrl: string): Promise<PgBossJobQueue | MysqlJobQueue | SqliteJobQueue> {
  if (isPostgresql(databaseUrl)) {
    const { PgBossJobQueue } = await import('@a2a-agent/runtime/pg-boss-jobs')
    return new PgBossJobQueue({ connectionString: databaseUrl })
  }
  if (isMysql(databaseUrl)) {
    const { MysqlJobQueue } = await import('@a2a-agent/runtime/mysql-jobs')
    return new MysqlJobQueue({ url: databaseUrl })
  }
  return new SqliteJobQueue({ file: jobsFile(databaseUrl) })
}

/** The SQLite job queue's file beside the SQLite database: dev.db → dev.jobs.db. */
function jobsFile(databaseUrl: string): string {
  return databaseUrl.replace(/^file:/, '').replace(/(\.db)?$/, '.jobs.db')
}
