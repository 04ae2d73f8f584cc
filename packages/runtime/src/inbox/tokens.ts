/**
 * A person's sign-in to the inbox without a password or an e-mail: a one-time link (`a2a
 * inbox-link --user <id>` prints one) is exchanged for a session. Both are random tokens of which
 * only the SHA-256 hash is stored, so a copy of the table signs nobody in. A link works once and
 * expires; a session expires and ends at sign-out (its row is deleted).
 * @module
 */
import { createHash, randomBytes } from 'node:crypto'

export type InboxTokenKind = 'link' | 'session'

/** One stored token (the A2AInboxToken model). */
export interface InboxTokenRecord {
  /** SHA-256 hex of the token; the token itself is never stored. */
  hash: string
  kind: InboxTokenKind
  /** The person it signs in: the owner of the tasks they see. */
  owner: string
  /** The tenant they act in; null for none. */
  tenant: string | null
  createdAt: Date
  expiresAt: Date
  /** When a link was exchanged for a session; a used link is refused. */
  usedAt: Date | null
}

/** Where the inbox keeps its tokens: the app's database ({@link prismaInboxTokens}) or the process. */
export interface InboxTokens {
  put(record: InboxTokenRecord): Promise<void>
  /**
   * Marks an unused, unexpired link used and resolves to it; undefined when it is unknown, used or
   * expired. Of two concurrent uses of one link exactly one gets it.
   */
  useLink(hash: string, now: Date): Promise<InboxTokenRecord | undefined>
  /** The unexpired session with this hash. */
  findSession(hash: string, now: Date): Promise<InboxTokenRecord | undefined>
  /** Deletes the token (sign-out); an absent one is not an error. */
  remove(hash: string): Promise<void>
}

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex')

export const newToken = (): string => randomBytes(32).toString('base64url')

/** How long a one-time link stays usable unless told otherwise. */
export const LINK_TTL_MS = 15 * 60_000

export interface NewInboxLink {
  owner: string
  tenant?: string | undefined
  /** Default 15 minutes. */
  ttlMs?: number | undefined
  now?: Date | undefined
}

/** Stores a one-time link for `owner` and returns its token (shown once) and expiry. */
export async function mintInboxLink(tokens: InboxTokens, link: NewInboxLink): Promise<{ token: string; expiresAt: Date }> {
  if (!link.owner.trim()) throw new Error('An inbox link needs the user it signs in (its owner)')
  if (link.tenant !== undefined && !link.tenant.trim()) throw new Error("An inbox link's tenant cannot be empty; leave it out for none")
  const ttlMs = link.ttlMs ?? LINK_TTL_MS
  if (!(ttlMs > 0)) throw new Error(`An inbox link's lifetime must be a positive number of milliseconds, not ${ttlMs}`)
  const token = newToken()
  const now = link.now ?? new Date()
  const expiresAt = new Date(now.getTime() + ttlMs)
  await tokens.put({ hash: tokenHash(token), kind: 'link', owner: link.owner, tenant: link.tenant ?? null, createdAt: now, expiresAt, usedAt: null })
  return { token, expiresAt }
}

/** The inbox's tokens in this process: for tests and single-process development (links from the CLI need the database). */
export class MemoryInboxTokens implements InboxTokens {
  readonly #rows = new Map<string, InboxTokenRecord>()

  async put(record: InboxTokenRecord): Promise<void> {
    this.#rows.set(record.hash, { ...record })
  }

  async useLink(hash: string, now: Date): Promise<InboxTokenRecord | undefined> {
    const row = this.#rows.get(hash)
    if (row?.kind !== 'link' || row.usedAt || row.expiresAt <= now) return undefined
    row.usedAt = now
    return { ...row }
  }

  async findSession(hash: string, now: Date): Promise<InboxTokenRecord | undefined> {
    const row = this.#rows.get(hash)
    return row?.kind === 'session' && row.expiresAt > now ? { ...row } : undefined
  }

  async remove(hash: string): Promise<void> {
    this.#rows.delete(hash)
  }
}

/** The one-time link's address: the inbox at `path` under `baseUrl`, its sign-in page with the token. */
export const inboxLinkUrl = (baseUrl: string, path: string, token: string): string => `${baseUrl.replace(/\/+$/, '')}${path}/sign-in?token=${token}`
