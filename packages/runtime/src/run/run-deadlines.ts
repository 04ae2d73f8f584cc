/**
 * Run deadlines, armed one turn of the event loop after a run starts: on a fast store most runs
 * settle within the turn they start in, and those never join a deadline queue. One setImmediate
 * per turn arms the deadlines of every run still going, each for what is left of its time; it is
 * also where a run stores the writes of its first turn, kept pending until then
 * (run/pending-writes.ts). A run that settles first is taken off the waiting list at once: a
 * caller that awaits sends back to back without yielding to the event loop (in-process, no I/O)
 * never reaches that turn, and the list must not keep every run it made.
 *
 * Armed deadlines wait in one queue per task timeout, in the order they were armed, which is the
 * order they fall due (every run of a queue has the same time), under one timer for the queue's
 * first: 10,000 held runs are 10,000 entries of a Map, not 10,000 timers and their closures.
 * @module
 */

export interface Timed {
  /** The run outlived the turn it started in: stores its pending writes and arms its deadline ({@link armTimeout}), `ms` from now. */
  arm(ms: number): void
  /** Its deadline passed before it settled. */
  timedOut(): void
}

/** Runs waiting for the next turn, each with its deadline (epoch ms). */
let waiting = new Map<Timed, number>()
let scheduled = false

/** Arms `run`'s deadline next turn unless it settles by then ({@link forgetDeadline}); `ms` counts from now. */
export function armDeadline(run: Timed, ms: number): void {
  if (!scheduled) {
    scheduled = true
    setImmediate(armWaiting)
  }
  waiting.set(run, Date.now() + ms)
}

/** The run settled: it needs no deadline. `timeoutMs` is the one it was armed with. */
export function forgetDeadline(run: object, timeoutMs: number): void {
  waiting.delete(run as Timed)
  queues.get(timeoutMs)?.delete(run as Timed)
}

function armWaiting(): void {
  const due = waiting
  waiting = new Map()
  scheduled = false
  const now = Date.now()
  for (const [run, deadline] of due) run.arm(Math.max(deadline - now, 0))
}

/** Tells `run` once `ms` have passed, unless it is forgotten first; `timeoutMs` is its task timeout, which names its queue. */
export function armTimeout(run: Timed, timeoutMs: number, ms: number): void {
  let queue = queues.get(timeoutMs)
  if (!queue) queues.set(timeoutMs, (queue = new DeadlineQueue()))
  queue.add(run, performance.now() + ms)
}

/** Deadlines of one task timeout, oldest first, under one timer (see the module's comment). */
class DeadlineQueue {
  /** Run → when it falls due (performance.now() ms); a Map keeps the order they were added in. */
  readonly #due = new Map<Timed, number>()
  #timer: NodeJS.Timeout | undefined

  add(run: Timed, due: number): void {
    this.#due.set(run, due)
    if (!this.#timer) this.#arm(due)
  }

  /** A forgotten run's entry goes; the timer stays, and finds the next one due when it fires. */
  delete(run: Timed): void {
    this.#due.delete(run)
  }

  #arm(due: number): void {
    // The runs' own work keeps the process alive, not their deadlines.
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, due - performance.now())).unref()
  }

  #fire(): void {
    this.#timer = undefined
    const now = performance.now()
    for (const [run, due] of this.#due) {
      if (due > now) return this.#arm(due)
      this.#due.delete(run)
      run.timedOut()
    }
  }
}

const queues = new Map<number, DeadlineQueue>()
