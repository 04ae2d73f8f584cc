/**
 * Task writes of other replicas, heard through the store's notifications (PostgresStore: LISTEN/
 * NOTIFY): a run live here whose task another replica settled (a cancel, a sweep) is cut at once,
 * not at the handler's next write, and frees its run slot; streams following a task no run here
 * holds are woken to read the store. Notes carry no task: the store is read, so a late or
 * coalesced note never shows anything out of order. Without notifications (another store, or
 * while the listening connection is down) streams read the store every `streamPollMs`.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExchangeCore } from './exchange-core.js'
import type { TaskNote, TaskRecord } from '../store/store.js'
import { capabilityOf } from '../store/capabilities.js'
import { isPaused, isTerminal } from '../wire/types.js'

/** How often a blocking answer about another replica's run reads the store: with notes, as a safety net; without, as the path. */
const LIVE_RECHECK_MS = 10_000
const FALLBACK_POLL_MS = 1000

const endsTurn = (record: TaskRecord) => isTerminal(record.task.status.state) || isPaused(record.task.status.state)

/** One follower's wake-ups: a note for its task (or a resync) since it last read the store. */
export interface StoreWatch {
  /** Resolves at the next note (at once when one came since the last call) or after `pollMs`. */
  next(pollMs: number, closed: Promise<void>): Promise<void>
  /** True while notes arrive: the follower may wait long between reads. */
  readonly live: boolean
  stop(): void
}

export class RemoteWrites {
  readonly #core: ExchangeCore
  readonly #watches = new Map<string, Set<{ wake: () => void }>>()
  #unlisten: (() => void) | undefined

  constructor(core: ExchangeCore) {
    this.#core = core
  }

  /** Listens, when the store gives notifications. */
  start(): void {
    this.#unlisten ??= capabilityOf(this.#core.store, 'notifications')?.notifications.listen((note) => this.#hear(note))
  }

  stop(): void {
    this.#unlisten?.()
    this.#unlisten = undefined
  }

  /** A watch of one task's writes; undefined without notifications (the follower only polls). */
  watch(taskId: string): StoreWatch | undefined {
    const notifications = capabilityOf(this.#core.store, 'notifications')?.notifications
    if (!notifications || !this.#unlisten) return undefined
    let pending = false
    let wakeNow: (() => void) | undefined
    const entry = {
      wake: () => {
        pending = true
        wakeNow?.()
      },
    }
    let set = this.#watches.get(taskId)
    if (!set) this.#watches.set(taskId, (set = new Set()))
    set.add(entry)
    const watches = this.#watches
    return {
      get live() {
        return notifications.live
      },
      async next(pollMs, closed) {
        if (pending) return void (pending = false)
        const timer = new AbortController()
        const woken = new Promise<void>((resolve) => (wakeNow = resolve))
        await Promise.race([woken, closed, sleep(pollMs, undefined, { signal: timer.signal, ref: false }).catch(() => undefined)])
        timer.abort()
        wakeNow = undefined
        pending = false
      },
      stop() {
        set.delete(entry)
        if (set.size === 0 && watches.get(taskId) === set) watches.delete(taskId)
      },
    }
  }

  /**
   * The task once its turn has ended (settled or paused), for a blocking answer about a run of
   * another replica (the repeat of a message sent there): woken by its notes, read from the store.
   * As it is when there are no notifications, or after the longest a run may last.
   */
  async turnEnded(record: TaskRecord): Promise<TaskRecord> {
    const watch = endsTurn(record) ? undefined : this.watch(record.id)
    if (!watch) return record
    const { taskTimeoutMs } = this.#core.limits
    const giveUp = Date.now() + taskTimeoutMs + this.#core.leaseMs
    const never = new Promise<void>(() => {})
    let current = record
    try {
      // Watching before the first read: no write falls between the two.
      for (;;) {
        current = (await this.#core.store.get(record.id).catch(() => current)) ?? current
        if (endsTurn(current) || Date.now() >= giveUp) return current
        await watch.next(watch.live ? LIVE_RECHECK_MS : FALLBACK_POLL_MS, never)
      }
    } finally {
      watch.stop()
    }
  }

  #hear(note: TaskNote): void {
    if ('resync' in note) {
      // Notes may have been missed: every live run and every follower checks the store.
      for (const run of this.#core.runs.values()) run.noticeWrite(Number.POSITIVE_INFINITY)
      for (const set of this.#watches.values()) for (const watch of set) watch.wake()
      return
    }
    this.#core.runs.get(note.taskId)?.noticeWrite(note.version)
    for (const watch of this.#watches.get(note.taskId) ?? []) watch.wake()
  }
}
