/**
 * What every A2A method is: a handler made once for the exchange's settings, then called with the
 * exchange's core, the caller and the raw params. A method's file exports its {@link Method}; the
 * table (method-table.ts) lists it under its wire name.
 * @module
 */
import type { Principal, Viewer } from '../core/principal.js'
import type { HostLookup } from '../push/address-guard.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import type { StreamSeats } from '../stream/stream-seats.js'
import type { Check } from '../wire/check.js'
import { parseParams } from '../wire/params.js'
import type { AgentCard } from '../wire/types.js'

export interface Caller {
  principal: Principal
  viewer: Viewer
  /** scheme://host[:port] the caller reached this server at (the card's URLs are built on it). */
  baseUrl?: string
  /** Resolves the request's credentials again; long-lived streams check them at each keep-alive. */
  reresolve?: () => Promise<Principal | null | undefined>
}

export type MethodHandler = (core: ExchangeCore, caller: Caller, params: unknown) => Promise<unknown>

/** A method as its file exports it: given the exchange's settings, the handler it serves with. */
export type Method = (options: MethodOptions) => MethodHandler

/** The exchange's settings the methods read; a capability turned off is undefined. */
export interface MethodOptions {
  extendedCard: ((caller: Caller, baseUrl: string) => Promise<AgentCard>) | undefined
  /** Undefined when streaming is turned off. */
  streaming: StreamingOptions | undefined
  /** Undefined when push notifications are turned off. */
  push: PushConfigOptions | undefined
}

export interface StreamingOptions {
  seats: StreamSeats
  /** Streams per API key; absent when unlimited. */
  keySeats?: StreamSeats
  keepAliveMs: number
  pollMs: number
}

export interface PushConfigOptions {
  /** Permit internal push targets (loopback, RFC 1918, …): development and tests only. */
  allowPrivate: boolean
  /** Configs kept per task, the oldest deleted past it; default 8, negative = unbounded. */
  maxPerTask?: number
  /** Resolver seam for tests; defaults to the system resolver. */
  lookup?: HostLookup
}

/**
 * How a binding (JSON-RPC, HTTP+JSON, gRPC) calls a method: by its wire name, as `principal`;
 * throws an A2AError as the wire would answer. See call.ts.
 */
export type Call = (
  principal: Principal,
  method: string,
  params: unknown,
  reresolve?: () => Promise<Principal | null | undefined>,
  baseUrl?: string,
) => Promise<unknown>

/** Parses a method's params; unknown fields that look like typos of known ones are logged. */
export function parse<T>(core: ExchangeCore, check: Check<T>, raw: unknown): T {
  return parseParams(check, raw, (nearMiss) => core.logger.warn(`a2a: ${nearMiss}`))
}
