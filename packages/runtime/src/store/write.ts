/**
 * Optimistic writes: read, decide, compare-and-set on the version, and decide again from the
 * fresh record when another writer got there first.
 * @module
 */
import type { Store, TaskChanges, TaskRecord } from './store.js'

const MAX_ATTEMPTS = 8

export type WriteOutcome =
  | { written: TaskRecord }
  /** The decision function declined (returned null) on this record. */
  | { declined: TaskRecord }
  | { gone: true }

/**
 * Applies `decide` to `record` and writes its changes with the record's version, retrying on the
 * freshly read record when the version moved. `decide` returns null to write nothing; it must not
 * change the record it is given (build the next task as a new object), so a failed write changes nothing.
 */
export async function writeTask(store: Store, record: TaskRecord, decide: (current: TaskRecord) => TaskChanges | null): Promise<WriteOutcome> {
  let current = record
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const changes = decide(current)
    if (!changes) return { declined: current }
    const written = await store.update(current.id, current.version, changes)
    if (written) return { written }
    const fresh = await store.get(current.id)
    if (!fresh) return { gone: true }
    current = fresh
  }
  throw new Error(`task ${record.id} kept changing under ${MAX_ATTEMPTS} write attempts`)
}
