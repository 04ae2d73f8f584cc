/**
 * Run deadlines, armed one turn of the event loop after a run starts: on a fast store most runs
 * settle within the turn they start in, and those never make a timer. One setImmediate per turn
 * arms the timers of every run still going, each for what is left of its time; it is also where a
 * run stores the writes of its first turn, kept pending until then (run/pending-writes.ts).
 * @module
 */

export interface Timed {
  /** Whether the run has settled (then no timer is armed). */
  readonly finished: boolean
  /** The run outlived the turn it started in: arms its timer to fire in `ms` (and stores its pending writes). */
  arm(ms: number): void
}

let pending: { run: Timed; deadline: number }[] = []

/** Arms `run`'s timer next turn unless it has settled by then; `ms` counts from now. */
export function armDeadline(run: Timed, ms: number): void {
  if (pending.length === 0) setImmediate(armPending)
  pending.push({ run, deadline: Date.now() + ms })
}

function armPending(): void {
  const due = pending
  pending = []
  const now = Date.now()
  for (const { run, deadline } of due) if (!run.finished) run.arm(Math.max(deadline - now, 0))
}
