/**
 * Per-owner seats for open streams: each holds a connection, a listener and a timer for its whole
 * life. At the cap an owner's next stream is refused, or the owner's oldest stream is evicted.
 * @module
 */

export type SeatOverflow = 'refuse' | 'evict-oldest'

export interface Seat {
  release(): void
}

export class StreamSeats {
  readonly #seats = new Map<string, Set<{ evict: () => void }>>()

  /** @param limit streams per owner; negative = unlimited. */
  constructor(
    readonly limit: number,
    readonly overflow: SeatOverflow,
  ) {}

  /** A seat for `owner`, or undefined when the owner is at the cap and the policy refuses. */
  claim(owner: string, evict: () => void): Seat | undefined {
    let seats = this.#seats.get(owner)
    if (!seats) this.#seats.set(owner, (seats = new Set()))
    if (this.limit >= 0 && seats.size >= this.limit) {
      if (this.overflow === 'refuse' || seats.size === 0) return undefined
      // Sets iterate in insertion order: the first is the oldest.
      const oldest = seats.values().next().value!
      seats.delete(oldest)
      oldest.evict()
    }
    const holder = { evict }
    seats.add(holder)
    return {
      release: () => {
        seats.delete(holder)
        if (seats.size === 0 && this.#seats.get(owner) === seats) this.#seats.delete(owner)
      },
    }
  }

  count(owner: string): number {
    return this.#seats.get(owner)?.size ?? 0
  }
}
