/**
 * One timer for every open stream's keep-alive, instead of a setInterval each: 10,000 streams
 * were 10,000 timers (and their closures) in the timer lists. A stream joins one of SLOTS buckets
 * by when it opened; the clock serves one bucket per tick, so each stream still gets a beat about
 * every `intervalMs` and the beats of a burst of streams stay spread over the interval.
 * @module
 */

const SLOTS = 16

export interface Beat {
  /** Called about every `intervalMs` until `stop()`. */
  (): void
}

class KeepAliveClock {
  readonly #slots: Set<Beat>[] = Array.from({ length: SLOTS }, () => new Set())
  #tick = 0
  #size = 0
  #timer: NodeJS.Timeout | undefined

  constructor(private readonly intervalMs: number) {}

  /** Adds `beat`; the returned function removes it. */
  join(beat: Beat): () => void {
    // The slot served last: its next turn comes a whole interval from now.
    const slot = this.#slots[(this.#tick + SLOTS - 1) % SLOTS]!
    slot.add(beat)
    this.#size++
    // The streams' sockets keep the process alive, not their keep-alives.
    this.#timer ??= setInterval(() => this.#serve(), Math.max(1, this.intervalMs / SLOTS)).unref()
    return () => {
      if (!slot.delete(beat)) return
      if (--this.#size === 0) {
        clearInterval(this.#timer)
        this.#timer = undefined
      }
    }
  }

  #serve(): void {
    const slot = this.#slots[this.#tick]!
    this.#tick = (this.#tick + 1) % SLOTS
    for (const beat of slot) beat()
  }
}

const clocks = new Map<number, KeepAliveClock>()

/** Runs `beat` about every `intervalMs` on the clock shared by every stream with that interval. */
export function everyKeepAlive(intervalMs: number, beat: Beat): () => void {
  let clock = clocks.get(intervalMs)
  if (!clock) clocks.set(intervalMs, (clock = new KeepAliveClock(intervalMs)))
  return clock.join(beat)
}
