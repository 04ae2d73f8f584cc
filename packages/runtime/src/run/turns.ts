/**
 * Large requests give other callers their turn. A 1 MiB body costs milliseconds of CPU at each
 * stage (parse, hash, encode for the store, encode the answer); run in one go they hold the event
 * loop for all of them, and a small request from someone else waits behind every stage. Large work
 * ends its turn after each stage instead; small work never awaits anything extra.
 * @module
 */

/** Text (a body, a task's JSON) at least this long is large enough to end a turn after. */
export const LARGE_TEXT = 64 * 1024

/** Resolves after the event loop's next poll: I/O that arrived meanwhile (other requests) runs first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
