/**
 * Sends each task event to the task's push configs. Best effort by design: one attempt, no retry,
 * a failure logged once (`@a2a-agent/runtime/push-outbox` adds retried, durable delivery).
 * Deliveries to one config go one at a time in event order (an appended artifact chunk carries no
 * sequence number), and an event older than one already sent or waiting for that config is
 * dropped, so a terminal state is always the last notification. A config an A2A 0.3 client set
 * is sent the task in the 0.3 shape instead of each event (generation.ts).
 *
 * The final state is never refused for a full queue: what waits is counted in configs, not events.
 * Each config keeps its waiting events in a short window that coalesces past its size (see
 * pending-events.ts), and a config's first waiting event is refused only when the bounds on
 * waiting configs are full and the event is not the state a run ends on.
 *
 * A hung receiver costs only itself: deliveries are scheduled per receiver (owner and origin),
 * at most `maxInFlightPerReceiver` of them in flight, inside `maxInFlightPerOwner` per owner and
 * `maxInFlight` for the process; waiting configs are bounded per receiver, per owner and for the
 * process alike, each bound wider than the one inside it, so one receiver that never answers
 * leaves its owner's other receivers their slots and their room to wait.
 * @module
 */
import { scrub, type Logger } from '../log/logger.js'
import type { PushConfigRecord, Store } from '../store/store.js'
import { taskToV03 } from '../wire/to-v03.js'
import { taskForV03 } from './generation.js'
import { addPending, isLastWord, isTerminal, type PendingEvent } from './pending-events.js'
import type { PushDelivery, PushDeliveryContext, PushEvent } from './push-delivery.js'
import { ReceiverSlots, type Receiver } from './receiver-slots.js'
import { deliverWebhook, describeUrl, webhookTarget, type WebhookTarget } from './webhook-client.js'

export interface PushDispatcherOptions extends PushDeliveryContext {
  /** Per delivery; default 10 s. */
  timeoutMs?: number
  /** Deliveries in flight for the process; default 32. */
  maxInFlight?: number
  /** Deliveries in flight for one owner; default 8. */
  maxInFlightPerOwner?: number
  /** Deliveries in flight to one receiver (owner and URL origin); default 2. */
  maxInFlightPerReceiver?: number
  /** Configs with events waiting, for the process; default 8192. */
  maxWaitingConfigs?: number
  /** Configs with events waiting, for one owner; default 1024. */
  maxWaitingConfigsPerOwner?: number
  /** Configs with events waiting, for one receiver; default 256. */
  maxWaitingConfigsPerReceiver?: number
  /** Events one config keeps in order before they coalesce; default 8. */
  eventWindow?: number
  /** Delivery seam for tests; defaults to the connect-time guarded {@link deliverWebhook}. */
  deliver?: typeof deliverWebhook
}

interface ConfigState {
  key: string
  owner: string
  receiver: Receiver<ConfigState>
  taskId: string
  configId: string
  target: WebhookTarget
  /** Highest version sent or waiting; older events are stale. */
  version: number
  pending: PendingEvent[]
  busy: boolean
  /** In its receiver's ready list. */
  ready: boolean
  /** A coalescing was logged for the current backlog. */
  coalesced: boolean
}

type Offer = 'started' | 'waiting' | 'stale' | 'full'

// Idle configs are remembered for their version (a late event may still come, even after a
// terminal one); past this many the least recently used idle ones are forgotten.
const MAX_TRACKED_CONFIGS = 4096
// A custom deliver that never settles must not hold its slot forever.
const GUARD_SLACK_MS = 1000

export class PushDispatcher implements PushDelivery {
  readonly #store: Pick<Store, 'get' | 'listPushConfigs'>
  readonly #logger: Logger
  readonly #allowPrivate: boolean
  readonly #timeoutMs: number
  readonly #deliver: typeof deliverWebhook
  readonly #window: number
  readonly #slots: ReceiverSlots<ConfigState>
  readonly #configs = new Map<string, ConfigState>()
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
    this.#window = Math.max(1, options.eventWindow ?? 8)
    this.#slots = new ReceiverSlots({
      inFlight: options.maxInFlight ?? 32,
      ownerInFlight: options.maxInFlightPerOwner ?? 8,
      receiverInFlight: options.maxInFlightPerReceiver ?? 2,
      waiting: options.maxWaitingConfigs ?? 8192,
      ownerWaiting: options.maxWaitingConfigsPerOwner ?? 1024,
      receiverWaiting: options.maxWaitingConfigsPerReceiver ?? 256,
    })
  }

  /**
   * Hands the event to every config of its task. Resolves once each delivery is started, waiting
   * or dropped (not when delivered); never rejects.
   */
  notify(event: PushEvent): Promise<void> {
    this.#pendingLookups++
    // Chained per task: with a store whose queries can overtake each other, a later event's
    // lookup must not enqueue before an earlier one's (it would make the earlier one stale).
    const previous = this.#lookups.get(event.taskId)
    const dispatch = () => this.#dispatch(event)
    const done = () => {
      if (this.#lookups.get(event.taskId) === current) this.#lookups.delete(event.taskId)
      this.#pendingLookups--
      this.#checkIdle()
    }
    const current: Promise<void> = (previous ? previous.then(dispatch) : this.#dispatchNow(event)).then(done, done)
    this.#lookups.set(event.taskId, current)
    return current
  }

  /** {@link #dispatch} started now, a throw of its synchronous part turned into a rejection. */
  #dispatchNow(event: PushEvent): Promise<void> {
    try {
      return this.#dispatch(event)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** Resolves when nothing is being looked up, in flight or waiting. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  async #dispatch(event: PushEvent): Promise<void> {
    let configs: PushConfigRecord[]
    let v03: PendingEvent | undefined
    const pending: PendingEvent = { version: event.version, body: event.response, terminal: isTerminal(event.response), lastWord: isLastWord(event.response) }
    try {
      configs = await this.#store.listPushConfigs(event.taskId)
      if (configs.some((config) => config.generation === '0.3')) {
        const task = await taskForV03(event, this.#store)
        if (task) v03 = { ...pending, body: taskToV03(task) }
      }
    } catch (error) {
      this.#log('error', `a2a: push config lookup failed for task ${scrub(event.taskId, 100)}: ${scrub(error)}`)
      return
    }
    const dropped: string[] = []
    for (const config of configs) {
      const offered = config.generation === '0.3' ? v03 : pending
      if (offered && this.#offer(config, offered) === 'full') dropped.push(config.id)
    }
    if (dropped.length > 0) {
      this.#log(
        'warn',
        `a2a: push notification for task ${scrub(event.taskId, 100)} version ${event.version} dropped for ` +
          `${dropped.length} config(s) (${scrub(dropped.join(', '), 300)}): too many configs waiting ` +
          `(${this.#slots.inFlight} deliveries in flight, ${this.#slots.waiting} configs waiting)`,
      )
    }
  }

  #offer(config: PushConfigRecord, event: PendingEvent): Offer {
    const key = `${config.taskId}\u0000${config.id}`
    let state = this.#configs.get(key)
    if (state && event.version < state.version) return 'stale'
    const target = webhookTarget(config)
    const receiver = this.#slots.receiverOf(config.owner, target.url)
    const idleConfig = !state || (!state.busy && state.pending.length === 0)
    let outcome: Offer
    if (idleConfig && this.#slots.canStart(receiver)) outcome = 'started'
    else if ((state && state.pending.length > 0) || event.lastWord || this.#slots.hasRoom(receiver)) outcome = 'waiting'
    else outcome = 'full'
    if (outcome === 'full') {
      this.#slots.forgetIfIdle(receiver)
      return outcome
    }
    if (!state) {
      state = {
        key,
        owner: config.owner,
        receiver,
        taskId: config.taskId,
        configId: config.id,
        target,
        version: event.version,
        pending: [],
        busy: false,
        ready: false,
        coalesced: false,
      }
      this.#configs.set(key, state)
    } else if (state.receiver !== receiver) {
      // The config now points elsewhere; only an idle config can move.
      if (!state.busy && state.pending.length === 0) state.receiver = receiver
    }
    state.version = Math.max(state.version, event.version)
    state.target = target
    if (outcome === 'started') {
      this.#start(state, event)
      return outcome
    }
    this.#wait(state, event)
    this.#slots.forgetIfIdle(receiver)
    return outcome
  }

  #wait(state: ConfigState, event: PendingEvent): void {
    const wasEmpty = state.pending.length === 0
    const dropped = addPending(state.pending, event, this.#window)
    if (wasEmpty) this.#slots.countWaiting(state.receiver, 1)
    if (dropped > 0 && !state.coalesced) {
      state.coalesced = true
      this.#log(
        'warn',
        `a2a: push notifications for task ${scrub(state.taskId, 100)} config ${scrub(state.configId, 100)} coalesced: ` +
          `the receiver at ${describeUrl(state.target.url)} is more than ${this.#window} events behind; ` +
          'the newest waits and the final state is kept',
      )
    }
    if (!state.busy && !state.ready) {
      state.ready = true
      state.receiver.queue.push(state)
    }
  }

  #start(state: ConfigState, event: PendingEvent): void {
    const receiver = state.receiver
    state.busy = true
    this.#slots.countInFlight(receiver, 1)
    void this.#send(state, event).finally(() => {
      state.busy = false
      this.#slots.countInFlight(receiver, -1)
      if (state.pending.length > 0) {
        state.ready = true
        receiver.queue.push(state)
      } else {
        this.#rememberIdle(state)
      }
      this.#pump()
      this.#slots.forgetIfIdle(receiver)
      this.#checkIdle()
    })
  }

  /**
   * Starts every waiting config that may start now, one per receiver per round so receivers take
   * turns; a receiver that started one moves to the back of the order.
   */
  #pump(): void {
    let started = true
    while (started) {
      started = false
      for (const receiver of this.#slots.receivers()) {
        if (receiver.queue.length === 0 || !this.#slots.canStart(receiver)) continue
        const state = receiver.queue.shift()!
        state.ready = false
        const event = state.pending.shift()!
        if (state.pending.length === 0) {
          this.#slots.countWaiting(receiver, -1)
          state.coalesced = false
        }
        this.#start(state, event)
        this.#slots.rotate(receiver)
        started = true
      }
    }
  }

  /** One attempt; every outcome but a 2xx is logged once. Never rejects. */
  async #send(state: ConfigState, event: PendingEvent): Promise<void> {
    const where = `push delivery to ${describeUrl(state.target.url)} (task ${scrub(state.taskId, 100)}, config ${scrub(state.configId, 100)})`
    let timer: NodeJS.Timeout | undefined
    try {
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`gave no answer within ${this.#timeoutMs + GUARD_SLACK_MS} ms`)), this.#timeoutMs + GUARD_SLACK_MS)
      })
      // Promise.resolve().then: a deliver that throws synchronously fails this delivery only.
      const target = state.target
      const attempt = Promise.resolve().then(() => this.#deliver(target, event.body, { allowPrivate: this.#allowPrivate, timeoutMs: this.#timeoutMs }))
      const { status } = await Promise.race([attempt, guard])
      if (status < 200 || status > 299) this.#log('warn', `a2a: ${where} failed: receiver answered HTTP ${status}`)
    } catch (error) {
      this.#log('warn', `a2a: ${where} failed: ${scrub(error)}`)
    } finally {
      clearTimeout(timer)
    }
  }

  // A throwing host logger must not break the dispatcher's bookkeeping.
  #log(level: 'warn' | 'error', line: string): void {
    try {
      this.#logger[level](line)
    } catch {
      // Nowhere left to report it.
    }
  }

  #rememberIdle(state: ConfigState): void {
    // Re-insert so the map's order is least recently used first; drop the oldest past the cap.
    this.#configs.delete(state.key)
    this.#configs.set(state.key, state)
    for (const [oldKey, old] of this.#configs) {
      if (this.#configs.size <= MAX_TRACKED_CONFIGS) break
      if (!old.busy && old.pending.length === 0) this.#configs.delete(oldKey)
    }
  }

  #isIdle(): boolean {
    return this.#pendingLookups === 0 && this.#slots.inFlight === 0 && this.#slots.waiting === 0
  }

  #checkIdle(): void {
    if (!this.#isIdle() || this.#idleWaiters.length === 0) return
    const waiters = this.#idleWaiters
    this.#idleWaiters = []
    for (const resolve of waiters) resolve()
  }
}
