/**
 * One timer for every open stream's keep-alive, instead of a setInterval each: 10,000 streams
 * were 10,000 timers (and their closures) in the timer lists. A stream joins one of SLOTS buckets
 * by when it opened; the clock serves one bucket per tick, so each stream still gets a beat about
 * every `intervalMs` and the beats of a burst of streams stay spread over the interval. Members
 * are objects told by a method, so joining makes no closure per stream.
 * @module
 */

const SLOTS = 16

export interface KeepAliveMember {
  /** Called about every `intervalMs` until the member leaves. */
  keepAlive(): void
}

class KeepAliveClock {
  readonly #slots: Set<KeepAliveMember>[] = Array.from({ length: SLOTS }, () => new Set())
  #tick = 0
  #size = 0
  #timer: NodeJS.Timeout | undefined

  constructor(private readonly intervalMs: number) {}

  /** Adds `member`, which is not a member yet. */
  join(member: KeepAliveMember): void {
    // The slot served last: its next turn comes a whole interval from now.
    const slot = this.#slots[(this.#tick + SLOTS - 1) % SLOTS]!
    slot.add(member)
    this.#size++
    // The streams' sockets keep the process alive, not their keep-alives.
    this.#timer ??= setInterval(() => this.#serve(), Math.max(1, this.intervalMs / SLOTS)).unref()
  }

  leave(member: KeepAliveMember): void {
    for (const slot of this.#slots) {
      if (!slot.delete(member)) continue
      if (--this.#size === 0) {
        clearInterval(this.#timer)
        this.#timer = undefined
      }
      return
    }
  }

  #serve(): void {
    const slot = this.#slots[this.#tick]!
    this.#tick = (this.#tick + 1) % SLOTS
    for (const member of slot) member.keepAlive()
  }
}

const clocks = new Map<number, KeepAliveClock>()

/** Tells `member` (not a member yet) about every `intervalMs`, on the clock shared by every stream with that interval, until it leaves. */
export function joinKeepAlive(intervalMs: number, member: KeepAliveMember): void {
  let clock = clocks.get(intervalMs)
  if (!clock) clocks.set(intervalMs, (clock = new KeepAliveClock(intervalMs)))
  clock.join(member)
}

/** Stops telling `member` (a member that never joined, or left already, is fine). */
export function leaveKeepAlive(intervalMs: number, member: KeepAliveMember): void {
  clocks.get(intervalMs)?.leave(member)
}
