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

/** The services created while serve() builds the app: their start waits for its role. */
const deferred = new AsyncLocalStorage<Set<BackgroundService>>()

/**
 * Calls `build` (serve()'s call of the app's start) so that the runtime's background work created
 * in it, however deep, is not started by itself but handed back, for serve() to start by role.
 */
export async function deferringBackground<T>(build: () => T | Promise<T>): Promise<{ built: T; services: Set<BackgroundService> }> {
  const services = new Set<BackgroundService>()
  const built = await deferred.run(services, build)
  return { built, services }
}

/** Hands `service` to the serve() building the app and tells whether it did; outside one the caller starts it. */
export function deferBackground(service: BackgroundService): boolean {
  const services = deferred.getStore()
  services?.add(service)
  return services !== undefined
}
