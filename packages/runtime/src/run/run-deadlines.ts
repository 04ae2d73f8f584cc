/**
 * Run deadlines, armed one turn of the event loop after a run starts: on a fast store most runs
 * settle within the turn they start in, and those never make a timer. One setImmediate per turn
 * arms the timers of every run still going, each for what is left of its time; it is also where a
 * run stores the writes of its first turn, kept pending until then (run/pending-writes.ts). A run
 * that settles first is taken off the waiting list at once: a caller that awaits sends back to
 * back without yielding to the event loop (in-process, no I/O) never reaches that turn, and the
 * list must not keep every run it made.
 * @module
 */

export interface Timed {
  /** The run outlived the turn it started in: arms its timer to fire in `ms` (and stores its pending writes). */
  arm(ms: number): void
}

/** Runs waiting for the next turn, each with its deadline (epoch ms). */
let waiting = new Map<Timed, number>()
let scheduled = false

/** Arms `run`'s timer next turn unless it settles by then ({@link forgetDeadline}); `ms` counts from now. */
export function armDeadline(run: Timed, ms: number): void {
  if (!scheduled) {
    scheduled = true
    setImmediate(armWaiting)
  }
  waiting.set(run, Date.now() + ms)
}

/** The run settled: it needs no timer. */
export function forgetDeadline(run: object): void {
  waiting.delete(run as Timed)
}

function armWaiting(): void {
  const due = waiting
  waiting = new Map()
  scheduled = false
  const now = Date.now()
  for (const [run, deadline] of due) run.arm(Math.max(deadline - now, 0))
}
