/**
 * Shares the event loop between requests being served and connections waiting to be accepted.
 * Node reads every socket that is ready before it gets back to the listening one, and each request
 * it reads runs its handler up to the handler's first wait: in a burst of thousands of connections,
 * one pass sets up a thousand streams while the kernel's accept queue (net.core.somaxconn, 4096 by
 * default) fills, and every connection past it is dropped and retried by its client after 1 s,
 * then 3 s. So a turn of the loop begins at most {@link REQUESTS_PER_TURN} requests; the rest wait,
 * in arrival order, for the next turns, and the loop accepts, reads and sends in between. Below
 * that many requests at once nothing waits.
 * @module
 */

/** Some 10-40 ms of stream set-up on a small machine each turn: short next to a SYN retry (1 s). */
export const REQUESTS_PER_TURN = 64

let begun = 0
let turnEnd: NodeJS.Immediate | undefined
/** Requests waiting for a turn, oldest first, from `next` on. */
let waiting: (() => void)[] = []
let next = 0

/** Runs `serve` now, or in a later turn when this turn has begun its share of requests already. */
export function inTurn(serve: () => void): void {
  turnEnd ??= setImmediate(nextTurn)
  if (begun < REQUESTS_PER_TURN && next === waiting.length) {
    begun++
    return serve()
  }
  waiting.push(serve)
}

/** A new turn: the next share of the waiting requests begins; the rest wait for the turn after. */
function nextTurn(): void {
  turnEnd = undefined
  const end = Math.min(waiting.length, next + REQUESTS_PER_TURN)
  const share = waiting.slice(next, end)
  next = end
  // The requests begun are let go of: at once when none wait, else once they are many.
  if (next === waiting.length || next >= 1024) {
    waiting = waiting.slice(next)
    next = 0
  }
  begun = share.length
  // Counted from here, so a turn that begins none frees the counter for the turn after.
  if (begun > 0) turnEnd = setImmediate(nextTurn)
  for (const serve of share) serve()
}
