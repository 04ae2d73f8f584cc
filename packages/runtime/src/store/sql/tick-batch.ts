/**
 * Lookups that arrive within one turn of the event loop, answered by one query: under load a
 * GetTask and the reads of every send started in one poll share a round trip (and PostgreSQL one
 * statement) instead of one each. The query runs at setImmediate, after the poll that brought the
 * requests; a lone lookup waits for nothing else.
 * @module
 */
import { chunks } from './statements.js'

interface Waiting<K, R> {
  key: K
  waiters: { resolve: (found: R | undefined) => void; reject: (error: unknown) => void }[]
}

export class TickBatch<K, R> {
  readonly #keyOf: (key: K) => string
  readonly #load: (keys: K[]) => Promise<Map<string, R>>
  readonly #copy: (found: R) => R
  #waiting = new Map<string, Waiting<K, R>>()

  /**
   * `load` answers the keys it was given, by `keyOf`; a key it leaves out is answered undefined.
   * It gets at most a chunk of keys (statements.ts's CHUNK) per call. Callers of the same key in
   * one batch get copies (`copy`), so none sees what another changes.
   */
  constructor(keyOf: (key: K) => string, load: (keys: K[]) => Promise<Map<string, R>>, copy: (found: R) => R = structuredClone) {
    this.#keyOf = keyOf
    this.#load = load
    this.#copy = copy
  }

  get(key: K): Promise<R | undefined> {
    const id = this.#keyOf(key)
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) setImmediate(() => this.#flush())
      let waiting = this.#waiting.get(id)
      if (!waiting) this.#waiting.set(id, (waiting = { key, waiters: [] }))
      waiting.waiters.push({ resolve, reject })
    })
  }

  #flush(): void {
    const batch = [...this.#waiting.values()]
    this.#waiting = new Map()
    for (const part of chunks(batch)) {
      this.#load(part.map((waiting) => waiting.key)).then(
        (found) => {
          for (const waiting of part) {
            const value = found.get(this.#keyOf(waiting.key))
            waiting.waiters.forEach(({ resolve }, i) => resolve(i === 0 || value === undefined ? value : this.#copy(value)))
          }
        },
        (error: unknown) => {
          for (const waiting of part) for (const { reject } of waiting.waiters) reject(error)
        },
      )
    }
  }
}
