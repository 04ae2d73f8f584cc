/**
 * How often a tier's settles trim it on a store whose trims are paced (StoreCapabilities.pacedTrims:
 * the SQL stores, where a trim is a statement and a commit of its own that reads the whole tier).
 * At a trim per settle, an agent of many owners paid one per send: with 64 owners on PostgreSQL,
 * 57% of the statements' execution time. A tier is trimmed at its first settle in this process,
 * then at every ⌊bound / 8⌋-th; a bound under 16 is kept exactly.
 * @module
 */

/** Tiers followed at most; one forgotten is trimmed at its next settle, as a new one is. */
const TIERS = 10_000

export class TrimPacing {
  /** Settles since the tier's last trim, by tier key, oldest trim first. */
  readonly #since = new Map<string, number>()

  /** Whether this settle of the tier trims it, for a bound of `keep`. */
  due(tierKey: string, keep: number): boolean {
    const every = Math.floor(keep / 8)
    if (every <= 1) return true
    const since = this.#since.get(tierKey)
    if (since !== undefined && since + 1 < every) {
      this.#since.set(tierKey, since + 1)
      return false
    }
    this.#since.delete(tierKey)
    if (this.#since.size >= TIERS) this.#since.delete(this.#since.keys().next().value!)
    this.#since.set(tierKey, 0)
    return true
  }
}
