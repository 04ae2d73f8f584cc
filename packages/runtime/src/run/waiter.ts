/**
 * A promise and the functions that settle it, made for someone waiting on an outcome not known
 * yet: a run makes one only when asked before the outcome (most runs are never waited for).
 * @module
 */
export class Waiter<T> {
  readonly promise: Promise<T>
  resolve!: (value: T) => void
  reject!: (error: unknown) => void

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }
}
