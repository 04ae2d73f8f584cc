/**
 * {@link LimitCounters} in the A2ALimitEntry table, shared by every replica on the database: the
 * takes that arrive within one turn of the event loop go as one batch, in one transaction, and
 * the releases of one turn in one statement (tick-batch.ts). How a batch is taken is the
 * database's ({@link CounterStatements}: postgres/counters.ts, mysql/counters.ts); what each take
 * answers is decided here alike.
 * @module
 */
import type { Executor } from './executor.js'
import type { Sql } from './sql.js'
import { TickBatch } from './tick-batch.js'
import type { LimitCounters, Take } from '../../core/counters.js'

export interface TakeRequest {
  key: string
  id: string
  limit: number
  ttlMs: number
}

export interface Entry {
  key: string
  id: string
}

/** A request's outcome as the batch's transaction decided it: `ord` is its place in the batch, from 1. */
export interface Counted {
  ord: number
  taken: boolean
  next: Date | null
}

export const entryKey = (entry: Entry): string => `${entry.key}\u0000${entry.id}`

/** A take's answer is shared by the callers of the same key and id in one batch: it is never changed. */
const same = <T>(value: T): T => value

/** How a database takes a batch (each request's Take, by its entry key) and releases entries. */
export interface CounterStatements {
  takeAll(db: Executor, requests: TakeRequest[], nowMs: number): Promise<Map<string, Take>>
  release(entries: readonly Entry[]): Sql
}

export class SqlCounters implements LimitCounters {
  readonly #takes: TickBatch<TakeRequest, Take>
  readonly #releases: TickBatch<Entry, true>

  constructor(db: Executor, statements: CounterStatements, now: () => number = Date.now) {
    this.#takes = new TickBatch<TakeRequest, Take>(entryKey, (requests) => statements.takeAll(db, requests, now()), same)
    this.#releases = new TickBatch<Entry, true>(
      entryKey,
      async (entries) => {
        await db.execute(statements.release(entries), { idempotent: true })
        return new Map()
      },
      same,
    )
  }

  async take(key: string, id: string, limit: number, ttlMs: number): Promise<Take> {
    return (await this.#takes.get({ key, id, limit, ttlMs }))!
  }

  async release(key: string, id: string): Promise<void> {
    await this.#releases.get({ key, id })
  }
}

/** Each request's Take, by its entry key. A refusal waits for the key's earliest expiry, this batch's entries included. */
export function answers(requests: TakeRequest[], counted: Counted[], nowMs: number): Map<string, Take> {
  const takenTtl = new Map<string, number>()
  for (const row of counted) {
    const request = requests[row.ord - 1]!
    if (row.taken) takenTtl.set(request.key, Math.min(takenTtl.get(request.key) ?? Number.POSITIVE_INFINITY, request.ttlMs))
  }
  const found = new Map<string, Take>()
  for (const row of counted) {
    const request = requests[row.ord - 1]!
    if (row.taken) {
      found.set(entryKey(request), { taken: true })
      continue
    }
    // Refused with nothing counted (limit 0): no entry will expire to make room, as in MemoryCounters.
    const next = Math.min(row.next ? row.next.getTime() - nowMs : Number.POSITIVE_INFINITY, takenTtl.get(request.key) ?? Number.POSITIVE_INFINITY)
    found.set(entryKey(request), { taken: false, retryAfterMs: next })
  }
  return found
}
