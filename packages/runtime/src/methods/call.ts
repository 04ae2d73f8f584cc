/**
 * The one way into the methods: a name looked up in the table, the request limits checked, the
 * caller's isolation coordinates taken, and the method run (in a span when tracing is on).
 * @module
 */
import { viewerOf } from '../core/principal.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { methodSpan, tracingOn } from '../trace/tracing.js'
import { A2AError } from '../wire/a2a-error.js'
import { checkRequestLimits, type RequestLimits } from '../wire/limits.js'
import type { Call, Caller, MethodHandler } from './method.js'

/** The {@link Call} the bindings get; `publicUrl` (else http://localhost) when a call names no base URL. */
export function createCall(core: ExchangeCore, methods: Record<string, MethodHandler>, limits: RequestLimits, publicUrl: string | undefined): Call {
  const known = Object.keys(methods)
  const viewerFor = core.viewerOf ?? viewerOf
  return async (principal, method, params = {}, reresolve, baseUrl, generation) => {
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined
    if (!handler) throw unknownMethod(method, known)
    checkRequestLimits(params, limits)
    const base = baseUrl ?? publicUrl ?? 'http://localhost'
    const viewer = viewerFor(principal)
    // Each shape written out whole: a field set afterwards gives every caller an out-of-object property store.
    let caller: Caller = reresolve ? { principal, viewer, baseUrl: base, reresolve } : { principal, viewer, baseUrl: base }
    if (generation) caller = { ...caller, generation }
    return tracingOn() ? methodSpan(method, () => handler(core, caller, params)) : handler(core, caller, params)
  }
}

/** -32601, with a pointer to the v1.0 name when a v0.x slash method was sent. */
export function unknownMethod(method: string, known: readonly string[]): A2AError {
  const hint = method.includes('/') ? `v0.x method names are not served; this server speaks A2A 1.0, whose methods are ${known.join(', ')}` : `Methods: ${known.join(', ')}`
  return A2AError.methodNotFound(method, hint)
}
