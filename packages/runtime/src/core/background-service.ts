/**
 * Work a process does apart from answering requests (the lease sweep, push-outbox deliveries, a
 * job worker). `serve()` starts these under the `worker` and `all` roles and stops them at
 * shutdown; both calls may come more than once, and stop() before start() does nothing.
 * @module
 */
export interface BackgroundService {
  start(): unknown
  stop(): unknown
}
