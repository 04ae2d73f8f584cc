/**
 * An outcome told to whoever asks for it, its promise made only when someone does: most runs
 * settle before anyone waits for them, and a promise with its resolvers per run is then waste.
 * @module
 */
export class LazyOutcome<T> {
  #settled: { value: T } | { error: unknown } | undefined
  #promise: Promise<T> | undefined
  #resolve: ((value: T) => void) | undefined
  #reject: ((error: unknown) => void) | undefined

  /** Resolves with the value, or rejects with the error, once known; whoever asks answers a rejection. */
  get promise(): Promise<T> {
    if (this.#promise) return this.#promise
    const settled = this.#settled
    if (settled) return (this.#promise = 'value' in settled ? Promise.resolve(settled.value) : Promise.reject(settled.error))
    return (this.#promise = new Promise((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    }))
  }

  resolve(value: T): void {
    this.#settled ??= { value }
    this.#resolve?.(value)
  }

  reject(error: unknown): void {
    this.#settled ??= { error }
    this.#reject?.(error)
  }
}
