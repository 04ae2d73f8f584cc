/**
 * What the exchange hands its stored events to: the built-in best-effort PushDispatcher, or a
 * delivery the app brings (the outbox of `@a2a-agent/runtime/push-outbox`).
 * @module
 */
import type { Logger } from '../log/logger.js'
import type { Store } from '../store/store.js'
import type { StreamResponse } from '../wire/types.js'

export interface PushEvent {
  taskId: string
  /** The task version the write that produced this event made. */
  version: number
  response: StreamResponse
}

/** Where the exchange hands every stored event for its push configs. */
export interface PushDelivery {
  /** Takes the event for every config of its task; resolves once it is handed on, never rejects. */
  notify(event: PushEvent): Promise<void>
  /** Resolves when every event handed in so far is delivered or safely queued. */
  idle(): Promise<void>
}

/** What the exchange gives a delivery it did not build itself. */
export interface PushDeliveryContext {
  /** Its configs, and its capabilities (`capabilityOf(store, 'pushOutbox')`). */
  store: Pick<Store, 'listPushConfigs' | 'capabilities'>
  logger: Logger
  /** The exchange's allowPrivatePush: internal push targets permitted. */
  allowPrivate: boolean
}

/** A push delivery the app brings. */
export interface PushDeliveryProvider {
  attach(context: PushDeliveryContext): PushDelivery
}
