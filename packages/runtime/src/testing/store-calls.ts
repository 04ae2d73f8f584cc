/**
 * A real store with its task calls written down, for tests that count what a request costs: the
 * store itself runs (this records, it stands in for nothing). With `shared`, the store is declared
 * as one replicas share (without the oneProcess capability), which makes the exchange insert a new
 * task before its run starts.
 * @module
 */
import type { Capabilities } from '../store/capabilities.js'
import type { NewTaskClaim, Store, TaskRecord } from '../store/store.js'

/** A claim is recorded as `claim`, and its insert as the `create` it is. */
const claimRecorded =
  (claimNewTask: Capabilities['claims']['claimNewTask'], calls: string[]) =>
  async (record: TaskRecord, unlessAccepted: boolean): Promise<NewTaskClaim | undefined> => {
    calls.push('claim')
    const claim = await claimNewTask(record, unlessAccepted)
    return (
      claim && {
        insert: (latest) => {
          calls.push(`create ${latest.task.status.state}`)
          return claim.insert(latest)
        },
        release: () => claim.release(),
      }
    )
  }

/** The task methods recorded, each as `<method>` or, for writes, `<method> <state written>`. */
const RECORDED = new Set(['create', 'update', 'get', 'findByMessageId', 'delete'])

export interface RecordedStore<S extends Store> {
  store: S
  /** Every recorded call, oldest first: `create TASK_STATE_COMPLETED`, `update TASK_STATE_WORKING`, `get`, … */
  calls: string[]
  /** The creates and updates among {@link calls}. */
  writes(): string[]
}

export function recordCalls<S extends Store>(store: S, options: { shared?: boolean } = {}): RecordedStore<S> {
  const calls: string[] = []
  const declared = store.capabilities
  const sharedCapabilities = Array.isArray(declared) ? declared.filter((name) => name !== 'oneProcess') : { ...declared, oneProcess: false }
  const proxy = new Proxy(store, {
    get(target, property) {
      if (property === 'capabilities' && options.shared) return sharedCapabilities
      const value: unknown = Reflect.get(target, property)
      if (typeof value !== 'function') return value
      // Called on the store itself: its private fields are not the proxy's.
      if (property === 'claimNewTask') return claimRecorded(value.bind(target), calls)
      if (typeof property !== 'string' || !RECORDED.has(property)) return value.bind(target)
      return (...args: unknown[]) => {
        const written = property === 'create' ? args[0] : property === 'update' ? args[2] : undefined
        const state = (written as { task?: { status: { state: string } } } | undefined)?.task?.status.state
        calls.push(state ? `${property} ${state}` : property)
        return value.apply(target, args)
      }
    },
  })
  return { store: proxy, calls, writes: () => calls.filter((call) => call.startsWith('create') || call.startsWith('update')) }
}
