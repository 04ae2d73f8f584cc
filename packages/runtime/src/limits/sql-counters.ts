/**
 * {@link LimitCounters} in the A2ALimitEntry table of a PostgreSQL database, shared by every
 * replica on it. A take runs in one transaction under a transaction-scoped advisory lock on its
 * key, so concurrent takes of one key (from any replica) queue instead of both passing the check;
 * expired entries of the key are deleted as it goes.
 * @module
 */
import { read, write, type Executor } from '../store/prisma/executor.js'
import { toDate } from '../store/prisma/rows.js'
import { sql } from '../store/prisma/sql.js'
import type { LimitCounters, Take } from './counters.js'

export class SqlCounters implements LimitCounters {
  constructor(
    private readonly db: Executor,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string, id: string, limit: number, ttlMs: number): Promise<Take> {
    const now = this.now
    return this.db.transaction(function* () {
      const at = now()
      yield* read(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))::text AS "locked"`)
      yield* write(sql`DELETE FROM "A2ALimitEntry" WHERE "key" = ${key} AND "expiresAt" <= ${toDate(at)}`)
      const [counted] = yield* read<{ n: number; next: Date | null; mine: number }>(
        sql`SELECT count(*)::int AS "n", min("expiresAt") AS "next", count(*) FILTER (WHERE "id" = ${id})::int AS "mine"
          FROM "A2ALimitEntry" WHERE "key" = ${key}`,
      )
      if (!counted!.mine && counted!.n >= limit) return { taken: false, retryAfterMs: counted!.next!.getTime() - at }
      yield* write(sql`INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt") VALUES (${key}, ${id}, ${toDate(at)}, ${toDate(at + ttlMs)})
        ON CONFLICT ("key", "id") DO UPDATE SET "expiresAt" = excluded."expiresAt"`)
      return { taken: true } as Take
    })
  }

  async release(key: string, id: string): Promise<void> {
    await this.db.execute(sql`DELETE FROM "A2ALimitEntry" WHERE "key" = ${key} AND "id" = ${id}`, { idempotent: true })
  }
}
