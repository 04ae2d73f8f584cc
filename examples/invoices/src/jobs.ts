import { SqliteJobQueue } from '@a2a-agent/runtime'
import type { PgBossJobQueue } from '@a2a-agent/runtime/pg-boss-jobs'
import { isMysql, isPostgresql } from './db.js'

/**
 * The job queue on the app's database: pg-boss's tables (schema a2a_jobs) in PostgreSQL, loaded
 * only then; on SQLite a file of its own beside the database (dev.db → dev.jobs.db), kept apart
 * so the app's migrations never meet a table they do not know.
 */
export async function jobQueue(databaseUrl: string): Promise<PgBossJobQueue | SqliteJobQueue> {
  if (isPostgresql(databaseUrl)) {
    const { PgBossJobQueue } = await import('@a2a-agent/runtime/pg-boss-jobs')
    return new PgBossJobQueue({ connectionString: databaseUrl })
  }
  return new SqliteJobQueue({ file: jobsFile(databaseUrl) })
}

/**
 * The SQLite job queue's file for a database that is not PostgreSQL: beside a SQLite one (dev.db →
 * dev.jobs.db); for MySQL, which has no job queue of its own here, one named after the database in
 * the app folder (jobs then stay with one process).
 */
export function jobsFile(databaseUrl: string): string {
  if (isMysql(databaseUrl)) return `${decodeURIComponent(new URL(databaseUrl).pathname.slice(1))}.jobs.db`
  return databaseUrl.replace(/^file:/, '').replace(/(\.db)?$/, '.jobs.db')
}
