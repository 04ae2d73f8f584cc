/**
 * Work a process does apart from answering requests (the lease sweep, push-outbox deliveries, a
 * job worker). `serve()` starts these under the `worker` and `all` roles and stops them at
 * shutdown; both calls may come more than once, and stop() before start() does nothing.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'

export interface BackgroundService {
  start(): unknown
  stop(): unknown
}

/**
 * The services created while serve() builds the app, their start waiting for its role; once it is
 * built, `late` takes those created after in the same async context (a timer or a promise chain
 * the app's start left behind), which would otherwise join a set serve() had already read.
 */
interface Deferral {
  services: Set<BackgroundService>
  late?: (service: BackgroundService) => void
}

const deferred = new AsyncLocalStorage<Deferral>()

/**
 * Calls `build` (serve()'s call of the app's start) so that the runtime's background work created
 * in it, however deep, is not started by itself but handed back, for serve() to start by role;
 * `handleLate` then receives what is created later in the same context.
 */
export async function deferringBackground<T>(
  build: () => T | Promise<T>,
): Promise<{ built: T; services: Set<BackgroundService>; handleLate(late: (service: BackgroundService) => void): void }> {
  const deferral: Deferral = { services: new Set() }
  const built = await deferred.run(deferral, build)
  return { built, services: deferral.services, handleLate: (late) => void (deferral.late = late) }
}

/** Hands `service` to the serve() building the app and tells whether it did; outside one the caller starts it. */
export function deferBackground(service: BackgroundService): boolean {
  const deferral = deferred.getStore()
  if (!deferral) return false
  if (deferral.late) deferral.late(service)
  else deferral.services.add(service)
  return true
}
