/**
 * Fixes for Prisma 6.19's wasm schema engine (what the CLI runs with a driver adapter), applied in
 * the CLI's own process by `prismaConfig`:
 *
 * P6: `migrate dev --create-only` stops the engine twice (before returning and again in a `finally`);
 * the second `free()` of the wasm-bindgen object throws "null pointer passed to rust", so the command
 * exits 1 after writing the migration. Each wasm object's `free()` is made safe to call twice.
 *
 * P7: the engine arms a 10 s JavaScript timer around its calls and never clears it, so every command
 * idled up to 10 s after its last line. Once the engine is freed nothing it armed can matter: its
 * timers are unref'd, and the process exits when the command is done.
 *
 * P8, P9 (declared-extensions.ts): declared PostgreSQL extensions are created by every `migrate dev`,
 * and never dropped once taken out of the declaration.
 * @module
 */
import { fixDeclaredExtensions } from './declared-extensions.js'

const INSTALLED = Symbol.for('@a2a-agent/runtime:wasm-engine-fixes')
const PATCHED = Symbol.for('@a2a-agent/runtime:idempotent-free')

interface WasmObject {
  __wbg_ptr: number
  free(): void
}

/** Installs the fixes once per process. */
export function fixWasmSchemaEngine(): void {
  const global = globalThis as typeof globalThis & { [INSTALLED]?: true }
  if (global[INSTALLED] || typeof FinalizationRegistry === 'undefined') return
  global[INSTALLED] = true

  // Timers the wasm code set (the engine's glue calls the global setTimeout from wasm frames).
  const armed = new Set<NodeJS.Timeout>()
  const setTimeoutOriginal = globalThis.setTimeout
  const setTimeoutTracked = function (this: unknown, ...args: Parameters<typeof setTimeout>) {
    const timer = setTimeoutOriginal.apply(this, args)
    if (new Error().stack?.includes('wasm://')) armed.add(timer)
    return timer
  }
  // Its own properties too (util.promisify.custom).
  globalThis.setTimeout = Object.defineProperties(setTimeoutTracked, Object.getOwnPropertyDescriptors(setTimeoutOriginal)) as typeof setTimeout

  // wasm-bindgen registers each object it wraps for finalization: the one place to reach its class.
  const register = FinalizationRegistry.prototype.register
  FinalizationRegistry.prototype.register = function (this: FinalizationRegistry<unknown>, target: WeakKey, held: unknown, token?: WeakKey) {
    if (typeof target === 'object' && '__wbg_ptr' in target) {
      const prototype = Object.getPrototypeOf(target) as WasmObject & { free: { [PATCHED]?: true } }
      idempotentFree(prototype, armed)
      fixDeclaredExtensions(prototype)
    }
    return register.call(this, target, held, token)
  } as typeof register
}

function idempotentFree(prototype: WasmObject & { free: { [PATCHED]?: true } }, armed: Set<NodeJS.Timeout>): void {
  if (typeof prototype.free !== 'function' || prototype.free[PATCHED]) return
  const free = prototype.free
  prototype.free = Object.assign(
    function (this: WasmObject) {
      if (this.__wbg_ptr === 0) return
      free.call(this)
      for (const timer of armed) timer.unref()
      armed.clear()
    },
    { [PATCHED]: true as const },
  )
}
