/**
 * One look at a time for work found by polling a table (a job queue's lane, the MySQL push
 * outbox's engine): a poke while a look runs makes one more once it ends, instead of a second
 * look beside it; an idle pump looks again after its interval. Each look handles its own errors.
 * @module
 */
export class PollingPump {
  readonly #look: () => Promise<void> | undefined
  readonly #intervalMs: number
  #pass: Promise<void> | undefined
  #again = false
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  /** `look` answers undefined when it ended at once (a synchronous table): nothing to wait for. */
  constructor(look: () => Promise<void> | undefined, intervalMs: number) {
    this.#look = look
    this.#intervalMs = intervalMs
  }

  /** Looks now, or once the look under way ended. */
  poke(): void {
    if (this.#stopped) return
    if (this.#pass) {
      this.#again = true
      return
    }
    clearTimeout(this.#timer)
    const pass = this.#look()
    if (!pass) return this.#rest()
    this.#pass = pass
    const after = () => {
      this.#pass = undefined
      if (this.#stopped) return
      if (!this.#again) return this.#rest()
      this.#again = false
      this.poke()
    }
    // Settled in a later microtask: after #pass is set, even when the look ended at once.
    void pass.then(after, after)
  }

  /** Looks no more; resolves once the look under way ended. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#pass?.catch(() => undefined)
  }

  #rest(): void {
    this.#timer = setTimeout(() => this.poke(), this.#intervalMs).unref()
  }
}
