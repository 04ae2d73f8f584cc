import { SqliteJobQueue } from '@a2a-agent/runtime'
import type { PgBossJobQueue } from '@a2a-agent/runtime/pg-boss-jobs'
import { isPostgresql } from './db.js'

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
  return new SqliteJobQueue({ file: databaseUrl.replace(/^file:/, '').replace(/(\.db)?$/, '.jobs.db') })
}
