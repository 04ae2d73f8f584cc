/**
 * SqlCounters (../counters.ts) on a PostgreSQL database. The takes that arrive within one turn of the event loop run as one transaction
 * (../tick-batch.ts): every key of the batch locked by a transaction-scoped advisory
 * lock, taken in hash order so that two batches sharing keys (from any replica) queue instead of
 * deadlocking, then one statement that prunes, counts and inserts for all of them, the four
 * (BEGIN and COMMIT too) written at once: one round trip. Concurrent takes of one key therefore
 * never both pass the check, and a busy agent pays the transaction once per batch, not once per
 * send. Releases are batched the same way.
 * @module
 */
import type { Executor } from '../executor.js'
import { toDate } from '../rows.js'
import { paddedRows } from '../padded-rows.js'
import { shaped, sql, type Sql } from '../sql.js'
import type { Take } from '../../../core/counters.js'
import { answers, SqlCounters, type Counted, type CounterStatements, type Entry, type TakeRequest } from '../counters.js'

/** The PostgreSQL statements of {@link SqlCounters}. */
export const POSTGRES_COUNTERS: CounterStatements = { takeAll, release: releaseStatement }

/** SqlCounters on PostgreSQL. */
export class PgCounters extends SqlCounters {
  constructor(db: Executor, now: () => number = Date.now) {
    super(db, POSTGRES_COUNTERS, now)
  }
}

/**
 * The take's probes of each key's entries as index scans, not bitmap scans: every take and
 * release leaves a dead row, and only an index scan marks the index entries of rows dead to all
 * so that later probes skip them. A bitmap scan, the planner's pick, visits each dead row's heap
 * tuple on every take until a vacuum (at 64 owners, ~400 per key after 10 s of sends: 4.7 ms per
 * take of 20 keys, the database's largest cost of a capped send). For the transaction only.
 */
export const INDEX_PROBES_ONLY = sql`SET LOCAL enable_bitmapscan = off`

/**
 * The batch's takes in one transaction. Within a key, the requests are ranked in arrival order
 * among those the key does not count yet: the k-th of them is taken when the key's live entries
 * and k are within its limit. An id already counted is renewed.
 */
function takeAll(db: Executor, requests: TakeRequest[], nowMs: number): Promise<Map<string, Take>> {
  const at = toDate(nowMs)
  const keys = requests.map((request) => request.key)
  const locks = sql`SELECT count(pg_advisory_xact_lock("h"))::int AS "locked" FROM (SELECT DISTINCT hashtextextended("k", 0) AS "h" FROM unnest(${keys}::text[]) AS "k" ORDER BY 1) AS "locks"`
  // After the locks, in a statement of its own (its snapshot sees every take that held them
  // before): the keys' expired entries deleted (but the batch's own ids, which the insert
  // renews), the live ones counted, and each request inserted when its rank leaves room. It needs
  // nothing of the locks' answer, so both go in one round trip with BEGIN and COMMIT. Sent again
  // after a lost connection: a take that landed counts its id, and counting it again renews it.
  return db.batchThenRead<Counted>([INDEX_PROBES_ONLY, locks, takeStatement(requests, at)], { idempotent: true }).then((counted) => answers(requests, counted, nowMs))
}

/**
 * The batch's entries deleted by key, each a probe of the primary key. As `IN (SELECT … unnest)`,
 * a plan made while the table was empty kept a hash of the batch and a scan of the table: 4.7 ms
 * per release at 20,000 entries, against 0.1 (postgres/plans.test.ts).
 */
export function releaseStatement(entries: readonly Entry[]): Sql {
  const { size, rows } = paddedRows(entries.length, (i) => sql`(${entries[i]?.key ?? null}::text, ${entries[i]?.id ?? null}::text)`)
  return shaped(`limit releases ${size}`, sql`DELETE FROM "A2ALimitEntry" e USING (VALUES ${rows}) AS r("key", "id") WHERE e."key" = r."key" AND e."id" = r."id"`)
}

/**
 * The statement that prunes, counts and inserts for the batch. Each key's entries are read by
 * themselves through the key's index (the lateral subquery, kept apart by `OFFSET 0`), and the
 * expired ones deleted by their row address: joined as a set, the prepared plan hashed the keys
 * and scanned the whole table twice per batch, every key's entries and every dead row a busy
 * agent's takes and releases leave until a vacuum. The requests are a padded VALUES list
 * (../padded-rows.ts; the filter drops the padding): with an unnest's guess of ten rows
 * the delete went back to a scan of the table. Each request meets its key's count and its own
 * entry through joins: as subqueries per request, each scanned every live entry of the batch's
 * keys, three times (~30,000 rows per take of 32 at 16 per key).
 */
export function takeStatement(requests: readonly TakeRequest[], at: Date): Sql {
  const { size, rows } = paddedRows(requests.length, (i) => {
    const request = requests[i]
    return sql`(${request?.key ?? null}::text, ${request?.id ?? null}::text, ${request?.limit ?? null}::int, ${request?.ttlMs ?? null}::float8, ${i + 1}::int)`
  })
  return shaped(
    `limit takes ${size}`,
    sql`WITH "req" AS (SELECT * FROM (VALUES ${rows}) AS r("key", "id", "lim", "ttl", "ord") WHERE r."key" IS NOT NULL),
      "held" AS (SELECT e.* FROM (SELECT DISTINCT "key" FROM "req") k
        CROSS JOIN LATERAL (SELECT x."key", x."id", x."expiresAt", x.ctid AS "row" FROM "A2ALimitEntry" x WHERE x."key" = k."key" OFFSET 0) e),
      "pruned" AS (DELETE FROM "A2ALimitEntry" e USING "held" h WHERE e.ctid = h."row" AND h."expiresAt" <= ${at}
        AND NOT EXISTS (SELECT 1 FROM "req" WHERE "req"."key" = h."key" AND "req"."id" = h."id")),
      "live" AS (SELECT "key", "id", "expiresAt" FROM "held" WHERE "expiresAt" > ${at}),
      "counts" AS (SELECT "key", count(*)::int AS "n", min("expiresAt") AS "next" FROM "live" GROUP BY "key"),
      "counted" AS (SELECT r.*, coalesce(c."n", 0) AS "n", c."next", m."id" IS NOT NULL AS "mine" FROM "req" r
          LEFT JOIN "counts" c ON c."key" = r."key" LEFT JOIN "live" m ON m."key" = r."key" AND m."id" = r."id"),
      "ranked" AS (SELECT *, row_number() OVER (PARTITION BY "key", "mine" ORDER BY "ord") AS "rank" FROM "counted"),
      "taken" AS (INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt")
        SELECT "key", "id", ${at}, ${at}::timestamp + "ttl" * interval '1 millisecond' FROM "ranked" WHERE "mine" OR "n" + "rank" <= "lim"
        ON CONFLICT ("key", "id") DO UPDATE SET "expiresAt" = excluded."expiresAt" RETURNING "key", "id")
      SELECT "ord", EXISTS (SELECT 1 FROM "taken" t WHERE t."key" = r."key" AND t."id" = r."id") AS "taken", "next" FROM "ranked" r`,
  )
}
