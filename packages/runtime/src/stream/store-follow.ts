/**
 * A stream follows the store when no run of its task is live in this process (another replica
 * runs it, or a run ended without storing a final state): it reads the store when woken by the
 * store's notification of a write (another replica's run, a resume elsewhere), or every `pollMs`
 * while notifications are unavailable, until a run of the task is live here again. The events
 * the store kept are sent one by one; past a gap (kept no longer, or written by a store that keeps
 * none) the task is sent instead.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExchangeCore } from '../run/exchange-core.js'
import type { StoreWatch } from '../run/remote-writes.js'
import type { TaskRecord } from '../store/store.js'
import { capabilityOf } from '../store/capabilities.js'
import { A2AError } from '../wire/a2a-error.js'
import type { TaskState } from '../wire/types.js'
import type { EventSink } from './sse-writer.js'
import type { TaskEvent } from '../run/task-events.js'

/** What following the store needs of a stream (a TaskStream). */
export interface StoreFollowed {
  readonly core: ExchangeCore
  readonly taskId: string
  readonly sink: EventSink
  readonly pollMs: number
  /** A held snapshot waits for a direct reply, which only the task tells (not its kept events). */
  readonly holdsSnapshot: boolean
  /** The version of the last event or snapshot sent. */
  lastVersion: number
  /** Made the first time the stream follows the store, and kept (stopped with the stream). */
  watch: StoreWatch | undefined
  deliver(event: TaskEvent): void
  answerRecord(record: TaskRecord): void
  endsStream(state: TaskState): boolean
  /** If a run of the task is live in this process, the stream waits for its end instead: true then. */
  awaitRun(): boolean
}

/** With notes arriving, the store is still read this often (times pollMs): a safety net, not the path. */
const LIVE_POLL_FACTOR = 10

/** Follows the store until the stream ends or a run of its task is live here; `readFirst`: read before the first wait (a run just ended). */
export async function followStore(stream: StoreFollowed, readFirst: boolean): Promise<void> {
  const { core, sink, taskId } = stream
  if (!sink.open) return
  // Watching before the first read: no write falls between the two.
  const watch = (stream.watch ??= core.remote?.watch(taskId))
  // Closed while the watch was being made: stop() ran before it was there to stop.
  if (watch && !sink.open) return watch.stop()
  let closed: Promise<void> | undefined
  for (let wait = !readFirst; sink.open; wait = true) {
    if (wait) {
      closed ??= new Promise<void>((resolve) => sink.onClose(resolve))
      const pollMs = stream.pollMs
      if (watch) await watch.next(watch.live ? pollMs * LIVE_POLL_FACTOR : pollMs, closed)
      else await Promise.race([sleep(pollMs), closed])
      if (!sink.open) return
    }
    const read = await readOnce(stream)
    if (read === 'ended') return
    // A run of the task started here (a resume): its events come to the stream, and its end wakes it again.
    if (stream.awaitRun()) return
  }
}

/** One catch-up read: the kept events, else the task; 'ended' when the stream ended on what it read. */
async function readOnce(stream: StoreFollowed): Promise<'ended' | undefined> {
  const { core, sink, taskId } = stream
  // Events sent (or their read failed, tried again at the next wake): nothing more to read now.
  if ((await sendKeptEvents(stream)) !== false) return undefined
  // A read that failed (the database is away) is tried again at the next wake, not taken for a deleted task.
  const fresh = await core.store.get(taskId).catch(() => null)
  if (fresh === null) return undefined
  if (!fresh) {
    sink.fail(A2AError.taskNotFound(taskId))
    return 'ended'
  }
  if (fresh.version > stream.lastVersion) {
    // Written between the two reads: its event is kept by now (the same statement wrote both).
    if ((await sendKeptEvents(stream)) === true) return undefined
    stream.lastVersion = fresh.version
    stream.answerRecord(fresh)
  } else if (stream.endsStream(fresh.task.status.state)) {
    sink.close()
    return 'ended'
  }
  return sink.open ? undefined : 'ended'
}

/**
 * Sends the events the store kept after the last version sent, when they follow it without a
 * gap: true when any was sent, false when the task must be read instead, null when the read failed.
 */
async function sendKeptEvents(stream: StoreFollowed): Promise<boolean | null> {
  const keeping = capabilityOf(stream.core.store, 'keptEvents')
  if (!keeping || stream.holdsSnapshot) return false
  const after = stream.lastVersion
  const kept = await keeping.eventsSince(stream.taskId, after).catch(() => null)
  if (kept === null) return null
  if (kept.length === 0 || !kept.every((event, i) => event.version === after + 1 + i)) return false
  for (const event of kept) stream.deliver({ taskId: stream.taskId, version: event.version, response: event.response })
  return true
}
