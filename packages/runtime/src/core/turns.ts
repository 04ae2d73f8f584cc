/**
 * Turns of the event loop. Large requests give other callers their turn: a 1 MiB body costs
 * milliseconds of CPU at each stage (parse, hash, encode for the store, encode the answer); run in
 * one go they hold the event loop for all of them, and a small request from someone else waits
 * behind every stage. Large work ends its turn after each stage instead; small work never awaits
 * anything extra. And work that is cheaper done together is collected over a turn
 * ({@link TurnBatch}).
 * @module
 */

/** Text (a body, a task's JSON) at least this long is large enough to end a turn after. */
export const LARGE_TEXT = 64 * 1024

/** Resolves after the event loop's next poll: I/O that arrived meanwhile (other requests) runs first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Items added within one turn of the event loop, handed to `flush` together once the turn is over
 * (one setImmediate per turn that added any), in the order they were added.
 */
export class TurnBatch<T> {
  #items: T[] = []
  readonly #flush: () => void

  constructor(flush: (items: T[]) => void) {
    this.#flush = () => {
      const items = this.#items
      this.#items = []
      flush(items)
    }
  }

  add(item: T): void {
    if (this.#items.push(item) === 1) setImmediate(this.#flush)
  }
}
