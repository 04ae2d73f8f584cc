/**
 * API keys kept in the app's database (the A2AApiKey model `a2a generate entities` writes to
 * prisma/a2a.prisma). Only a key's SHA-256 hash is stored: the key itself is shown once, when it
 * is created. A key acts as its owner, in its tenant, with its scope set as the tier its tasks
 * live in (null scopes: a full, session-like key).
 * @module
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { HttpRefusal } from '../core/http-refusal.js'
import type { Delegate, RawClient } from '../store/prisma/client.js'
import { query } from '../store/prisma/raw.js'
import { sql } from '../store/sql/sql.js'
import { isStoreUnavailable, RETRY_AFTER_SECONDS } from '../store/unavailable.js'
import { type Principal, type PrincipalResolver, scopeKey } from '../core/principal.js'

/** An A2AApiKey row as Prisma returns it. */
export interface ApiKeyRow {
  id: string
  hash: string
  prefix: string
  owner: string
  tenant: string | null
  scopes: string | null
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

/** What the API key functions need of an app's Prisma client: the A2AApiKey delegate. */
export interface PrismaApiKeyClient {
  a2AApiKey: Delegate<ApiKeyRow>
}

/** A key as listings show it: everything but its hash. */
export interface ApiKeyInfo {
  id: string
  /** The key's first characters, to tell keys apart. */
  prefix: string
  owner: string
  tenant: string | null
  /** The key's scope set, sorted; null for a full key. */
  scopes: string[] | null
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

export interface NewApiKey {
  owner: string
  tenant?: string
  /** Narrows the key: its tasks live in this scope set's tier. Absent for a full key. */
  scopes?: readonly string[]
}

const KEY_PREFIX = 'a2a_'
const SHOWN_CHARS = 12
const HUMAN_FIELDS = { id: true, prefix: true, owner: true, tenant: true, scopes: true, createdAt: true, lastUsedAt: true, revokedAt: true }

const hashOf = (key: string) => createHash('sha256').update(key).digest('hex')

/** Creates a key and returns it: this is the only time the key itself is available. */
export async function createApiKey(db: PrismaApiKeyClient, options: NewApiKey): Promise<{ id: string; key: string }> {
  if (!options.owner.trim()) throw new Error('An API key needs an owner')
  if (options.tenant !== undefined && !options.tenant.trim()) throw new Error("An API key's tenant cannot be empty; leave it out for none")
  for (const scope of options.scopes ?? []) {
    // The stored set is space-separated, so a scope cannot hold whitespace.
    if (!/^\S+$/.test(scope)) throw new Error(`Scope "${scope}" is empty or holds whitespace`)
  }
  const key = KEY_PREFIX + randomBytes(32).toString('base64url')
  const id = randomUUID()
  await db.a2AApiKey.create({
    data: {
      id,
      hash: hashOf(key),
      prefix: key.slice(0, SHOWN_CHARS),
      owner: options.owner,
      tenant: options.tenant ?? null,
      scopes: scopeKey(options.scopes),
      createdAt: new Date(),
    },
  })
  return { id, key }
}

/** The keys of one owner (or all keys), oldest first. Hashes are never read. */
export async function listApiKeys(db: PrismaApiKeyClient, options: { owner?: string } = {}): Promise<ApiKeyInfo[]> {
  const rows = await db.a2AApiKey.findMany({
    where: options.owner === undefined ? {} : { owner: options.owner },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: HUMAN_FIELDS,
  })
  return rows.map(infoOf)
}

/**
 * Revokes a key: requests with it are refused from now on. Resolves to the key as it now is, or
 * undefined when there is no such key. Revoking a revoked key keeps its first revocation time.
 */
export async function revokeApiKey(db: PrismaApiKeyClient, id: string): Promise<ApiKeyInfo | undefined> {
  await db.a2AApiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } })
  const row = await db.a2AApiKey.findUnique({ where: { id }, select: HUMAN_FIELDS })
  return row ? infoOf(row) : undefined
}

export interface ApiKeyResolverOptions {
  /** How often at most a key's lastUsedAt is written; default one minute. */
  touchIntervalMs?: number
  /** The clock; tests move it. */
  now?: () => number
}

/**
 * A resolver that accepts `Authorization: Bearer <key>` for the unrevoked keys in the database.
 * The key is looked up by its hash, so the lookup's timing says nothing about stored keys. The
 * lookup runs on every request, so it is one raw statement (see store/prisma/raw.ts).
 */
export function apiKeyResolver(db: PrismaApiKeyClient & RawClient, options: ApiKeyResolverOptions = {}): PrincipalResolver {
  const interval = options.touchIntervalMs ?? 60_000
  const now = options.now ?? Date.now
  return async (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
    // Not one of ours: no query.
    if (!match || !match[1]!.startsWith(KEY_PREFIX)) return null
    const lookup = sql`SELECT "id", "owner", "tenant", "scopes", "lastUsedAt", "revokedAt" FROM "A2AApiKey" WHERE "hash" = ${hashOf(match[1]!)}`
    const [row] = await lookUp<Omit<ApiKeyRow, 'hash' | 'prefix' | 'createdAt'>>(db, lookup)
    if (!row || row.revokedAt) return null
    const at = now()
    if (!row.lastUsedAt || at - row.lastUsedAt.getTime() >= interval) await touch(db, row.id, at, interval)
    const principal: Principal = { owner: row.owner, credential: row.id }
    if (row.tenant !== null) principal.tenant = row.tenant
    if (row.scopes !== null) principal.scopes = scopesOf(row.scopes)
    return principal
  }
}

/**
 * The key lookup, tried again once when its connection died (a read: safe to repeat); a database
 * that stays unreachable answers HTTP 503 with Retry-After, not 500: the credentials may be fine.
 */
async function lookUp<Row>(db: RawClient, statement: ReturnType<typeof sql>): Promise<Row[]> {
  try {
    return await query<Row>(db, statement)
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error
    try {
      return await query<Row>(db, statement)
    } catch (again) {
      if (!isStoreUnavailable(again)) throw again
      throw HttpRefusal.unavailable('The agent cannot reach its database to check your credentials; retry shortly', RETRY_AFTER_SECONDS)
    }
  }
}

// Conditional, so concurrent requests (or processes) write lastUsedAt once per interval; a failed
// write costs only accuracy, never the request.
async function touch(db: PrismaApiKeyClient, id: string, at: number, interval: number): Promise<void> {
  const due = { OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(at - interval) } }] }
  await db.a2AApiKey.updateMany({ where: { id, ...due }, data: { lastUsedAt: new Date(at) } }).then(undefined, () => undefined)
}

const scopesOf = (stored: string): string[] => (stored === '' ? [] : stored.split(' '))

function infoOf(row: Omit<ApiKeyRow, 'hash'>): ApiKeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    owner: row.owner,
    tenant: row.tenant,
    scopes: row.scopes === null ? null : scopesOf(row.scopes),
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  }
}
