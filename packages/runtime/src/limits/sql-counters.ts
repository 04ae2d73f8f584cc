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
      const at = toDate(now())
      yield* read(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))::text AS "locked"`)
      // After the lock, in one statement (its snapshot sees every take that held the lock before):
      // the key's expired entries deleted (but this id's, which the insert renews), the live ones
      // counted, and this one counted when there is room.
      const [counted] = yield* read<{ n: number; next: Date | null; mine: number; taken: number }>(
        sql`WITH "pruned" AS (DELETE FROM "A2ALimitEntry" WHERE "key" = ${key} AND "expiresAt" <= ${at} AND "id" <> ${id}),
          "counted" AS (SELECT count(*) FILTER (WHERE "expiresAt" > ${at})::int AS "n", min("expiresAt") FILTER (WHERE "expiresAt" > ${at}) AS "next",
            count(*) FILTER (WHERE "id" = ${id} AND "expiresAt" > ${at})::int AS "mine" FROM "A2ALimitEntry" WHERE "key" = ${key}),
          "taken" AS (INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt")
            SELECT ${key}, ${id}, ${at}, ${toDate(at.getTime() + ttlMs)} FROM "counted" WHERE "mine" > 0 OR "n" < ${limit}
            ON CONFLICT ("key", "id") DO UPDATE SET "expiresAt" = excluded."expiresAt" RETURNING 1)
          SELECT "n", "next", "mine", (SELECT count(*) FROM "taken")::int AS "taken" FROM "counted"`,
      )
      // Refused with nothing counted (limit 0): no entry will expire to make room, as in MemoryCounters.
      if (!counted!.taken) return { taken: false, retryAfterMs: counted!.next ? counted!.next.getTime() - at.getTime() : Number.POSITIVE_INFINITY } as Take
      return { taken: true } as Take
    })
  }

  async release(key: string, id: string): Promise<void> {
    await this.db.execute(sql`DELETE FROM "A2ALimitEntry" WHERE "key" = ${key} AND "id" = ${id}`, { idempotent: true })
  }
}
