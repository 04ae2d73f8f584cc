/**
 * SqlCounters (../counters.ts) on the A2ALimitEntry table of a MySQL or MariaDB database, shared by every
 * replica on it (MysqlStore's): the takes of one turn of the event loop in one transaction, as
 * postgres/counters.ts does on PostgreSQL. MySQL has no transaction-scoped advisory lock: each key has
 * a row of its own in the table (id '', expiring never, counted by no one) that the transaction
 * writes first, all of the batch's in one statement in key order, so two batches sharing keys
 * (from any replica) queue on those rows rather than both passing the check. Then the keys' entries
 * are read, and the expired ones deleted and the taken ones written as the PostgreSQL statement
 * decides (ranked in arrival order among the ids a key does not count yet).
 * @module
 */
import { read, write, type Executor, type Steps } from '../executor.js'
import { toDate } from '../rows.js'
import { join, sql } from '../sql.js'
import { answers, entryKey, SqlCounters, type CounterStatements, type Counted, type TakeRequest } from '../counters.js'

const TAKE_ATTEMPTS = 4
const TAKE_RETRY_MS = 100

/** The id of a key's lock row: no take's id is empty (they are task ids and principals). */
const LOCK_ID = ''
/** The lock rows' expiry, and the latest any entry's may be: DATETIME ends in year 9999. */
const NEVER = new Date('9999-12-31T00:00:00Z')

interface Held {
  key: string
  id: string
  expiresAt: Date
}

/** The statements of {@link SqlCounters} on MySQL and MariaDB. */
export const MYSQL_COUNTERS: CounterStatements = {
  takeAll: async (db, requests, nowMs) => {
    // Sent again after a lost connection, which may have committed it: a take that landed counts
    // its id, and taking it again renews it. Up to TAKE_ATTEMPTS: a take is several round trips,
    // and its caller, refused for want of the database, would never release what landed.
    for (let attempt = 1; ; attempt++) {
      try {
        return answers(requests, await db.transaction(() => takeAll(requests, nowMs)), nowMs)
      } catch (error) {
        if (attempt >= TAKE_ATTEMPTS || !db.lostConnection?.(error)) throw error
        await new Promise((resolve) => setTimeout(resolve, TAKE_RETRY_MS))
      }
    }
  },
  release: (entries) =>
    sql`DELETE FROM "A2ALimitEntry" WHERE ${join(
      entries.map((entry) => sql`("key" = ${entry.key} AND "id" = ${entry.id})`),
      ' OR ',
    )}`,
}

/** SqlCounters on MySQL and MariaDB. */
export class MysqlCounters extends SqlCounters {
  constructor(db: Executor, now: () => number = Date.now) {
    super(db, MYSQL_COUNTERS, now)
  }
}

/** The batch's takes, in the transaction: each request's count, rank and whether it was taken. */
function* takeAll(requests: readonly TakeRequest[], nowMs: number): Steps<Counted[]> {
  const at = toDate(nowMs)
  const keys = [...new Set(requests.map((request) => request.key))].sort()
  const locks = keys.map((key) => sql`(${key}, ${LOCK_ID}, ${at}, ${NEVER})`)
  yield* write(sql`INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt") VALUES ${join(locks)} ON DUPLICATE KEY UPDATE "createdAt" = VALUES("createdAt")`)
  const held = yield* read<Held>(sql`SELECT "key", "id", "expiresAt" FROM "A2ALimitEntry" WHERE "key" IN (${join(keys)}) AND "id" <> ${LOCK_ID}`)
  const asked = new Set(requests.map(entryKey))
  const expired = held.filter((entry) => entry.expiresAt.getTime() <= nowMs && !asked.has(entryKey(entry)))
  const live = held.filter((entry) => entry.expiresAt.getTime() > nowMs)
  const counted: Counted[] = []
  const taken: TakeRequest[] = []
  const ranks = new Map<string, number>()
  requests.forEach((request, i) => {
    const ofKey = live.filter((entry) => entry.key === request.key)
    const mine = ofKey.some((entry) => entry.id === request.id)
    const rankKey = `${mine}\u0000${request.key}`
    const rank = (ranks.get(rankKey) ?? 0) + 1
    ranks.set(rankKey, rank)
    const next = ofKey.reduce<Date | null>((min, entry) => (min === null || entry.expiresAt < min ? entry.expiresAt : min), null)
    const take = mine || ofKey.length + rank <= request.limit
    if (take) taken.push(request)
    counted.push({ ord: i + 1, taken: take, next })
  })
  if (expired.length) yield* write(MYSQL_COUNTERS.release(expired))
  if (taken.length) {
    const rows = taken.map((request) => sql`(${request.key}, ${request.id}, ${at}, ${new Date(Math.min(nowMs + request.ttlMs, NEVER.getTime() - 1))})`)
    yield* write(sql`INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt") VALUES ${join(rows)} ON DUPLICATE KEY UPDATE "expiresAt" = VALUES("expiresAt")`)
  }
  return counted
}
