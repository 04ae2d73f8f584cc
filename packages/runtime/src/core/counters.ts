/**
 * What limits count in: entries under a key, each counting until it expires. A take and its check
 * are one atomic step, so two requests cannot both take the last place. {@link MemoryCounters}
 * counts in this process; a store shared by replicas provides counters in its database
 * (PostgresStore: the A2ALimitEntry table), so every replica sees the same counts.
 * @module
 */

export type Take = { taken: true } | { taken: false /** Milliseconds until the earliest counted entry expires (Infinity when none is: limit 0). */; retryAfterMs: number }

export interface LimitCounters {
  /**
   * Counts `id` under `key` until `now + ttlMs` when fewer than `limit` unexpired entries are
   * there (an `id` already counted is counted once); otherwise takes nothing.
   */
  take(key: string, id: string, limit: number, ttlMs: number): Promise<Take>
  /** Stops counting `id` under `key`; an absent entry is not an error. */
  release(key: string, id: string): Promise<void>
}

export class MemoryCounters implements LimitCounters {
  readonly #entries = new Map<string, Map<string, number>>()
  #takes = 0

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, id: string, limit: number, ttlMs: number): Promise<Take> {
    const at = this.now()
    // Now and then every key is swept, so callers who went quiet leave nothing behind.
    if (++this.#takes % 1024 === 0) for (const other of this.#entries.keys()) this.#prune(other, at)
    const entries = this.#prune(key, at) ?? new Map<string, number>()
    if (!entries.has(id) && entries.size >= limit) return { taken: false, retryAfterMs: Math.min(...entries.values()) - at }
    entries.set(id, at + ttlMs)
    this.#entries.set(key, entries)
    return { taken: true }
  }

  #prune(key: string, at: number): Map<string, number> | undefined {
    const entries = this.#entries.get(key)
    if (!entries) return undefined
    for (const [entry, expiresAt] of entries) if (expiresAt <= at) entries.delete(entry)
    if (entries.size === 0) this.#entries.delete(key)
    return entries
  }

  async release(key: string, id: string): Promise<void> {
    const entries = this.#entries.get(key)
    entries?.delete(id)
    if (entries?.size === 0) this.#entries.delete(key)
  }
}
