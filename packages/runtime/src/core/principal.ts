/**
 * Who is calling. The app resolves every request to a principal; the runtime never serves an
 * anonymous caller, because tasks are per-user data.
 * @module
 */
import type { IncomingMessage } from 'node:http'

export interface Principal {
  /** The user the task belongs to (what erasure deletes by). */
  owner: string
  /** The tenant the request acts in; tasks made in one tenant are invisible from another. */
  tenant?: string
  /**
   * The scopes a narrowed credential (API token, embed grant) holds. Absent for a full session,
   * which sees all of its owner's tasks; a scoped caller sees only tasks made under the same set.
   */
  scopes?: readonly string[]
  /**
   * Identifies the credential the request came with (an API key's id), for limits held per key.
   * Absent: per-key limits count the owner's requests together.
   */
  credential?: string
}

/** Turns a request into a principal, or null/undefined when it carries no valid credential. */
export type PrincipalResolver = (request: IncomingMessage) => Principal | null | undefined | Promise<Principal | null | undefined>

/** The isolation coordinates a task records at creation and a caller is matched against. */
export interface Viewer {
  owner: string
  tenant: string | null
  /** Canonical scope set; null for a session. */
  scope: string | null
}

export function viewerOf(principal: Principal): Viewer {
  return { owner: principal.owner, tenant: principal.tenant ?? null, scope: scopeKey(principal.scopes) }
}

/** Order-independent key of a scope set: `["b","a"]` and `["a","b","a"]` are one tier. */
export function scopeKey(scopes: readonly string[] | undefined): string | null {
  if (scopes === undefined) return null
  return [...new Set(scopes)].sort().join(' ')
}

/** A task's own coordinates (its tier), out of the record that carries them. */
export const tierOf = (record: Viewer): Viewer => ({ owner: record.owner, tenant: record.tenant, scope: record.scope })

/** Whether a caller may see a task recorded with these coordinates. */
export function canSee(viewer: Viewer, task: Viewer): boolean {
  return task.owner === viewer.owner && task.tenant === viewer.tenant && (viewer.scope === null || task.scope === viewer.scope)
}
