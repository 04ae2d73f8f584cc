/**
 * At most one run per key at a time, and at most one waiting after it that every caller arriving
 * meanwhile shares: what a retention trim needs. Thirty runs settling in one tier at once would
 * otherwise send thirty trims that each try to delete the same oldest rows and wait on each
 * other's row locks; coalesced, one trim deletes the lot. A caller's share starts after its call,
 * so it sees every write the caller made before calling.
 * @module
 */
export class Coalesced<T> {
  readonly #keys = new Map<string, { tail: Promise<unknown>; waiting: Promise<T> | undefined }>()

  run(key: string, work: () => Promise<T>): Promise<T> {
    const slot = this.#keys.get(key)
    if (slot?.waiting) return slot.waiting
    const entry = slot ?? { tail: Promise.resolve(), waiting: undefined }
    const mine: Promise<T> = entry.tail.then(() => {
      // Started: a caller from now on queues the next run, which will see its writes.
      if (entry.waiting === mine) entry.waiting = undefined
      return work()
    })
    entry.waiting = mine
    const tail = mine.then(
      () => undefined,
      () => undefined,
    )
    entry.tail = tail
    void tail.then(() => {
      if (entry.tail === tail) this.#keys.delete(key)
    })
    this.#keys.set(key, entry)
    return mine
  }
}
