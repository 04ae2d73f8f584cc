/**
 * Sends each task event to the task's push configs. Best effort by design: one attempt, no retry,
 * a failure logged once. Deliveries to one config go one at a time in event order (an appended
 * artifact chunk carries no sequence number), and an event older than one already sent or queued
 * for that config is dropped, so a terminal state is always the last notification.
 *
 * Bounds keep a hung receiver from piling up sockets and payloads: at most `maxInFlight`
 * deliveries in flight and `maxQueued` waiting process-wide, and one owner holds at most
 * `maxInFlightPerOwner` / `maxQueuedPerOwner` of those, so one caller's dead receiver delays only
 * its own configs. Anything past the bounds is dropped with one warn line per event.
 * @module
 */
import { scrub, type Logger } from '../log/logger.js'
import type { PushConfigRecord, PushConfigStore } from '../store/store.js'
import type { StreamResponse } from '../wire/types.js'
import { deliverWebhook, type WebhookTarget } from './webhook-client.js'

export interface PushEvent {
  taskId: string
  /** The task version the write that produced this event made. */
  version: number
  response: StreamResponse
}

export interface PushDispatcherOptions {
  store: Pick<PushConfigStore, 'listPushConfigs'>
  logger: Logger
  /** Permit internal push targets (loopback, RFC 1918, …): development and tests only. */
  allowPrivate: boolean
  /** Per delivery; default 10 s. */
  timeoutMs?: number
  maxInFlight?: number
  maxQueued?: number
  maxInFlightPerOwner?: number
  maxQueuedPerOwner?: number
  /** Delivery seam for tests; defaults to the connect-time guarded {@link deliverWebhook}. */
  deliver?: typeof deliverWebhook
}

interface Delivery {
  key: string
  owner: string
  taskId: string
  configId: string
  version: number
  target: WebhookTarget
  body: StreamResponse
}

interface ConfigState {
  /** Highest version sent or queued; older events are stale. */
  version: number
  busy: boolean
  queued: number
}

interface OwnerCounts {
  inFlight: number
  queued: number
}

type Offer = 'started' | 'queued' | 'stale' | 'full'

// Idle configs are remembered for their version (a late event may still come, even after a
// terminal one); past this many the least recently used idle ones are forgotten.
const MAX_TRACKED_CONFIGS = 4096
// A custom deliver that never settles must not hold its slot forever.
const GUARD_SLACK_MS = 1000

export class PushDispatcher {
  readonly #store: Pick<PushConfigStore, 'listPushConfigs'>
  readonly #logger: Logger
  readonly #allowPrivate: boolean
  readonly #timeoutMs: number
  readonly #deliver: typeof deliverWebhook
  readonly #max: { inFlight: number; queued: number; ownerInFlight: number; ownerQueued: number }
  readonly #configs = new Map<string, ConfigState>()
  readonly #owners = new Map<string, OwnerCounts>()
  /** Waiting deliveries, oldest first, across all configs. */
  readonly #queue: Delivery[] = []
  #inFlight = 0
  /** Per task, the tail of its notify chain: lookups resolve in call order. */
  readonly #lookups = new Map<string, Promise<void>>()
  #pendingLookups = 0
  #idleWaiters: (() => void)[] = []

  constructor(options: PushDispatcherOptions) {
    this.#store = options.store
    this.#logger = options.logger
    this.#allowPrivate = options.allowPrivate
    this.#timeoutMs = options.timeoutMs ?? 10_000
    this.#deliver = options.deliver ?? deliverWebhook
    this.#max = {
      inFlight: options.maxInFlight ?? 16,
      queued: options.maxQueued ?? 16,
      ownerInFlight: options.maxInFlightPerOwner ?? 4,
      ownerQueued: options.maxQueuedPerOwner ?? 4,
    }
  }

  /**
   * Hands the event to every config of its task. Resolves once each delivery is started, queued or
   * dropped (not when delivered); never rejects.
   */
  notify(event: PushEvent): Promise<void> {
    this.#pendingLookups++
    // Chained per task: with a store whose queries can overtake each other, a later event's
    // lookup must not enqueue before an earlier one's (it would make the earlier one stale).
    const previous = this.#lookups.get(event.taskId) ?? Promise.resolve()
    const current = previous.then(() => this.#dispatch(event)).catch(() => undefined)
    this.#lookups.set(event.taskId, current)
    return current.finally(() => {
      if (this.#lookups.get(event.taskId) === current) this.#lookups.delete(event.taskId)
      this.#pendingLookups--
      this.#checkIdle()
    })
  }

  /** Resolves when nothing is being looked up, in flight or queued. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  async #dispatch(event: PushEvent): Promise<void> {
    let configs: PushConfigRecord[]
    try {
      configs = await this.#store.listPushConfigs(event.taskId)
    } catch (error) {
      this.#log('error', `a2a: push config lookup failed for task ${scrub(event.taskId, 100)}: ${scrub(error)}`)
      return
    }
    const dropped: string[] = []
    for (const config of configs) {
      const delivery: Delivery = {
        key: `${config.taskId}\u0000${config.id}`,
        owner: config.owner,
        taskId: config.taskId,
        configId: config.id,
        version: event.version,
        target: targetOf(config),
        body: event.response,
      }
      if (this.#offer(delivery) === 'full') dropped.push(config.id)
    }
    if (dropped.length > 0) {
      this.#log(
        'warn',
        `a2a: push notification for task ${scrub(event.taskId, 100)} version ${event.version} dropped for ` +
          `${dropped.length} config(s) (${scrub(dropped.join(', '), 300)}): delivery queue full ` +
          `(${this.#inFlight} in flight, ${this.#queue.length} queued)`,
      )
    }
  }

  #offer(delivery: Delivery): Offer {
    let state = this.#configs.get(delivery.key)
    if (state && delivery.version < state.version) return 'stale'
    const owner = this.#ownerCounts(delivery.owner)
    let outcome: Offer
    if ((!state || (!state.busy && state.queued === 0)) && this.#canStart(owner)) outcome = 'started'
    else if (this.#queue.length < this.#max.queued && owner.queued < this.#max.ownerQueued) outcome = 'queued'
    else outcome = 'full'
    if (outcome === 'full') {
      this.#forgetOwnerIfIdle(delivery.owner)
      return outcome
    }
    if (!state) {
      state = { version: delivery.version, busy: false, queued: 0 }
      this.#configs.set(delivery.key, state)
    }
    state.version = Math.max(state.version, delivery.version)
    if (outcome === 'started') {
      this.#start(delivery, state, owner)
    } else {
      this.#queue.push(delivery)
      state.queued++
      owner.queued++
    }
    return outcome
  }

  #canStart(owner: OwnerCounts): boolean {
    return this.#inFlight < this.#max.inFlight && owner.inFlight < this.#max.ownerInFlight
  }

  #start(delivery: Delivery, state: ConfigState, owner: OwnerCounts): void {
    state.busy = true
    owner.inFlight++
    this.#inFlight++
    void this.#send(delivery).finally(() => {
      state.busy = false
      owner.inFlight--
      this.#inFlight--
      this.#pump()
      this.#rememberIdle(delivery.key, state)
      this.#forgetOwnerIfIdle(delivery.owner)
      this.#checkIdle()
    })
  }

  /** Starts every waiting delivery that may start now, oldest first; one per config. */
  #pump(): void {
    for (let i = 0; i < this.#queue.length && this.#inFlight < this.#max.inFlight; ) {
      const delivery = this.#queue[i]!
      const state = this.#configs.get(delivery.key)!
      const owner = this.#ownerCounts(delivery.owner)
      if (state.busy || !this.#canStart(owner)) {
        i++
        continue
      }
      this.#queue.splice(i, 1)
      state.queued--
      owner.queued--
      this.#start(delivery, state, owner)
    }
  }

  /** One attempt; every outcome but a 2xx is logged once. Never rejects. */
  async #send(delivery: Delivery): Promise<void> {
    const where = `push delivery to ${describeUrl(delivery.target.url)} (task ${scrub(delivery.taskId, 100)}, config ${scrub(delivery.configId, 100)})`
    let timer: NodeJS.Timeout | undefined
    try {
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`gave no answer within ${this.#timeoutMs + GUARD_SLACK_MS} ms`)), this.#timeoutMs + GUARD_SLACK_MS)
      })
      // Promise.resolve().then: a deliver that throws synchronously fails this delivery only.
      const attempt = Promise.resolve().then(() =>
        this.#deliver(delivery.target, delivery.body, { allowPrivate: this.#allowPrivate, timeoutMs: this.#timeoutMs }),
      )
      const { status } = await Promise.race([attempt, guard])
      if (status < 200 || status > 299) this.#log('warn', `a2a: ${where} failed: receiver answered HTTP ${status}`)
    } catch (error) {
      this.#log('warn', `a2a: ${where} failed: ${scrub(error)}`)
    } finally {
      clearTimeout(timer)
    }
  }

  // A throwing host logger must not break the dispatcher's bookkeeping.
  #log(level: keyof Logger, line: string): void {
    try {
      this.#logger[level](line)
    } catch {
      // Nowhere left to report it.
    }
  }

  #ownerCounts(owner: string): OwnerCounts {
    let counts = this.#owners.get(owner)
    if (!counts) this.#owners.set(owner, (counts = { inFlight: 0, queued: 0 }))
    return counts
  }

  #forgetOwnerIfIdle(owner: string): void {
    const counts = this.#owners.get(owner)
    if (counts && counts.inFlight === 0 && counts.queued === 0) this.#owners.delete(owner)
  }

  #rememberIdle(key: string, state: ConfigState): void {
    if (state.busy || state.queued > 0) return
    // Re-insert so the map's order is least recently used first; drop the oldest past the cap.
    this.#configs.delete(key)
    this.#configs.set(key, state)
    for (const [oldKey, old] of this.#configs) {
      if (this.#configs.size <= MAX_TRACKED_CONFIGS) break
      if (!old.busy && old.queued === 0) this.#configs.delete(oldKey)
    }
  }

  #isIdle(): boolean {
    return this.#pendingLookups === 0 && this.#inFlight === 0 && this.#queue.length === 0
  }

  #checkIdle(): void {
    if (!this.#isIdle() || this.#idleWaiters.length === 0) return
    const waiters = this.#idleWaiters
    this.#idleWaiters = []
    for (const resolve of waiters) resolve()
  }
}

function targetOf(config: PushConfigRecord): WebhookTarget {
  const target: WebhookTarget = { url: config.url }
  if (config.token !== undefined) target.token = config.token
  if (config.authentication) target.authentication = config.authentication
  return target
}


// The host only: a push URL's path and query may carry the receiver's secrets.
function describeUrl(url: string): string {
  try {
    return scrub(new URL(url).host, 200)
  } catch {
    return '(unparsable URL)'
  }
}
