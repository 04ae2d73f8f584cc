/**
 * One codebase, several processes: `A2A_ROLE` picks what this one does. `agent` serves the A2A
 * bindings, cards, MCP and health; `web` the app's own routes and health; `worker` the
 * background work (lease sweep, push deliveries, jobs) and health only; `all` (the default) everything.
 * @module
 */
import type { RequestListener } from 'node:http'
import { listenerHalves, notFound } from '../http/listener-halves.js'

export const PROCESS_ROLES = ['web', 'agent', 'worker', 'all'] as const
export type ProcessRole = (typeof PROCESS_ROLES)[number]

/** `value` (A2A_ROLE, or serve()'s `role`) as a role; unset or empty is `all`. */
export function parseRole(value: string | undefined): ProcessRole {
  if (value === undefined || value.trim() === '') return 'all'
  const role = value.trim()
  if ((PROCESS_ROLES as readonly string[]).includes(role)) return role as ProcessRole
  throw new Error(`A2A_ROLE=${JSON.stringify(value)} is not a role; set one of ${PROCESS_ROLES.join(', ')} (default all)`)
}

/** Whether the role serves the A2A bindings (a gRPC listener of the app's too). */
export const servesA2a = (role: ProcessRole): boolean => role === 'agent' || role === 'all'

/** Whether the role runs the background work. */
export const runsBackground = (role: ProcessRole): boolean => role === 'worker' || role === 'all'

/** What `role` serves of the app's listener (health is put in front of it by serve()). */
export function roleListener(listener: RequestListener, role: ProcessRole): RequestListener {
  if (role === 'all') return listener
  if (role === 'worker') return notFound
  const halves = listenerHalves(listener)
  if (!halves)
    throw new Error(`A2A_ROLE=${role} needs the listener a2aListener() made (it tells the A2A routes from the app's); return that as \`listener\`, or run with A2A_ROLE=all`)
  return role === 'agent' ? halves.a2a : halves.app
}
