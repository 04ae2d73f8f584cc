/**
 * The rows of a VALUES list for a prepared statement's batch: a power-of-two count of them, the
 * ones past the batch all NULL (they match nothing). The planner sizes an unnest of an array
 * parameter only when it sees the value, so a statement over arrays was either planned anew at
 * every execution or kept a generic plan guessing ten rows, one that hashed the batch and scanned
 * the table once the table had grown; with the rows counted in its text, the plan is made for
 * them, and one statement per size is prepared.
 * @module
 */
import { join, type Sql } from './sql.js'

/** `row(i)` for i in 0..size-1, size the least power of two ≥ `count`; `row` gives NULLs past the batch. */
export function paddedRows(count: number, row: (i: number) => Sql): { size: number; rows: Sql } {
  let size = 1
  while (size < count) size *= 2
  return { size, rows: join(Array.from({ length: size }, (_, i) => row(i))) }
}
