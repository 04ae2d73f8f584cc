/**
 * A PostgreSQL connection cut under a statement, made deterministic for tests: the test's own admin
 * connection locks a table, the statement under test waits on the lock, and every backend waiting
 * so is terminated (pg_terminate_backend, on the test's own database only) until it has settled.
 * @module
 */
import pg from 'pg'

export interface LockCutter {
  /** The lock's holder; between cuts, the test's own connection for reading rows. */
  admin: pg.Client
  /**
   * Runs `request` while `table` (`name` or `schema.name`) is locked, terminating every backend that
   * waits on a lock until `request` has settled and `cutForMs` has passed; then unlocks. Resolves to
   * how `request` settled and the number of backends cut.
   */
  cutWhileLocked<T>(table: string, request: () => Promise<T>, cutForMs?: number): Promise<{ outcome: PromiseSettledResult<T>; cuts: number }>
  end(): Promise<void>
}

/** The lock's holder and the cutter, two connections to `url`. */
export async function lockCutter(url: string): Promise<LockCutter> {
  const admin = new pg.Client({ connectionString: url })
  // pg_stat_activity is read once per transaction, so the cutter stays out of the lock's.
  const cutter = new pg.Client({ connectionString: url })
  await Promise.all([admin.connect(), cutter.connect()])
  return {
    admin,
    async cutWhileLocked(table, request, cutForMs = 0) {
      const quoted = table
        .split('.')
        .map((part) => `"${part}"`)
        .join('.')
      await admin.query('BEGIN')
      await admin.query(`LOCK TABLE ${quoted} IN ACCESS EXCLUSIVE MODE`)
      let settled = false
      const outcome = Promise.allSettled([request()]).then(([result]) => ((settled = true), result!))
      let cuts = 0
      const until = Date.now() + cutForMs
      try {
        while (!settled || Date.now() < until) {
          const { rows } = await cutter.query(
            `SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
          cuts += rows[0].cut as number
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      } finally {
        await admin.query('ROLLBACK')
      }
      return { outcome: await outcome, cuts }
    },
    async end() {
      await Promise.all([admin.end(), cutter.end()])
    },
  }
}

/** The value `outcome` settled with; throws its reason when it was rejected. */
export function fulfilled<T>(outcome: PromiseSettledResult<T>): T {
  if (outcome.status === 'rejected') throw outcome.reason
  return outcome.value
}
