/**
 * Per-owner seats for open streams: each holds a connection, a listener and a timer for its whole
 * life. At the cap an owner's next stream is refused, or the owner's oldest stream is evicted.
 * @module
 */

export type SeatOverflow = 'refuse' | 'evict-oldest'

/** What holds a seat: told when the seat is taken away from it. */
export interface SeatHolder {
  evict(): void
}

export class StreamSeats {
  readonly #seats = new Map<string, Set<SeatHolder>>()

  /** @param limit streams per owner; negative = unlimited. */
  constructor(
    readonly limit: number,
    readonly overflow: SeatOverflow,
  ) {}

  /** Seats `holder` for `owner`; false when the owner is at the cap and the policy refuses. */
  claim(owner: string, holder: SeatHolder): boolean {
    // Unlimited: nothing to count, nothing to evict (a Set of every open stream per owner was the cost).
    if (this.limit < 0) return true
    let seats = this.#seats.get(owner)
    if (!seats) this.#seats.set(owner, (seats = new Set()))
    if (seats.size >= this.limit) {
      if (this.overflow === 'refuse' || seats.size === 0) {
        if (seats.size === 0) this.#seats.delete(owner)
        return false
      }
      // Sets iterate in insertion order: the first is the oldest.
      const oldest = seats.values().next().value!
      seats.delete(oldest)
      oldest.evict()
    }
    seats.add(holder)
    return true
  }

  /** Frees `holder`'s seat, if it still has one. */
  release(owner: string, holder: SeatHolder): void {
    const seats = this.#seats.get(owner)
    if (seats?.delete(holder) && seats.size === 0) this.#seats.delete(owner)
  }
}
