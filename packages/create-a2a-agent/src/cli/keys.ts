/**
 * `a2a keys create | list | revoke`: the API keys of the app's database (the A2AApiKey model),
 * through the app's own Prisma client.
 * @module
 */
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyInfo, type PrismaApiKeyClient } from '@a2a-agent/runtime/prisma'
import { ownerModels } from '@a2a-agent/generators/owner-models'
import { type AppDbOptions, CliUserError, reportFailure, withAppDb } from './app-db.js'
import { type Io, printLines } from './io.js'

export type KeysAction =
  | { action: 'create'; user: string; tenant?: string; scopes?: string; force?: boolean }
  | { action: 'list'; user?: string }
  | { action: 'revoke'; id: string }

/** Returns the exit code: 0 done, 1 user error (bad flag, unknown key, database refused), 2 bug. */
export async function runKeys(command: KeysAction, options: AppDbOptions, io: Io): Promise<number> {
  try {
    const scopes = command.action === 'create' ? parseScopes(command.scopes) : undefined
    return await withAppDb<PrismaApiKeyClient, number>(options, async (db, appRoot) => {
      if (command.action === 'create') {
        if (!command.force) await assertOwnerExists(db, appRoot, command.user)
        return create(db, { owner: command.user, tenant: command.tenant, scopes }, io)
      }
      if (command.action === 'list') return list(await listApiKeys(db, command.user === undefined ? {} : { owner: command.user }), io)
      return revoke(await revokeApiKey(db, command.id), command.id, io)
    })
  } catch (error) {
    return reportFailure(error, io)
  }
}

function parseScopes(spec: string | undefined): string[] | undefined {
  if (spec === undefined) return undefined
  const scopes = spec
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean)
  if (scopes.length === 0) throw new CliUserError('--scopes names no scope; write it like --scopes read,write, or leave it out for a full key')
  for (const scope of scopes) if (/\s/.test(scope)) throw new CliUserError(`--scopes: "${scope}" holds whitespace; separate scopes with commas`)
  return scopes
}

async function create(db: PrismaApiKeyClient, key: { owner: string; tenant: string | undefined; scopes: string[] | undefined }, io: Io): Promise<number> {
  if (!key.owner.trim()) throw new CliUserError('--user is empty; name the user the key acts as')
  if (key.tenant !== undefined && !key.tenant.trim()) throw new CliUserError('--tenant is empty; leave it out for no tenant')
  const { id, key: secret } = await createApiKey(db, {
    owner: key.owner,
    ...(key.tenant !== undefined && { tenant: key.tenant }),
    ...(key.scopes !== undefined && { scopes: key.scopes }),
  })
  const scope = key.scopes ? `scopes ${[...new Set(key.scopes)].sort().join(' ')}` : 'all scopes'
  // The key alone on stdout, so `KEY=$(a2a keys create ...)` captures it; the rest on stderr.
  io.stderr.write(`Created API key ${id} for ${key.owner}${key.tenant !== undefined ? ` in tenant ${key.tenant}` : ''} (${scope}).\n`)
  io.stdout.write(`${secret}\n`)
  io.stderr.write('Copy it now: it cannot be shown again (only its hash is stored). Send it as `Authorization: Bearer <key>`.\n')
  return 0
}

function list(keys: readonly ApiKeyInfo[], io: Io): number {
  if (keys.length === 0) {
    io.stdout.write('No API keys.\n')
    return 0
  }
  const rows = keys.map((key) => [
    key.id,
    `${key.prefix}…`,
    key.owner,
    key.tenant ?? '-',
    key.scopes === null ? '(all)' : key.scopes.join(' ') || '(none)',
    key.createdAt.toISOString(),
    key.lastUsedAt?.toISOString() ?? 'never',
    key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active',
  ])
  const table = [['ID', 'KEY', 'USER', 'TENANT', 'SCOPES', 'CREATED', 'LAST USED', 'STATUS'], ...rows]
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)))
  printLines(
    io.stdout,
    table.map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    ),
  )
  return 0
}

function revoke(key: ApiKeyInfo | undefined, id: string, io: Io): number {
  if (!key) throw new CliUserError(`no API key ${id}; \`a2a keys list\` shows the ids`)
  io.stdout.write(`Revoked API key ${key.id} (${key.prefix}…, user ${key.owner}) as of ${key.revokedAt!.toISOString()}.\n`)
  return 0
}

type Delegates = Record<string, { count(args: { where: Record<string, unknown> }): Promise<number> } | undefined>

/**
 * Refuses a key for an owner that is no row of the app's owner model (the model its entities'
 * owner fields point at): every request with it would act for rows nobody owns.
 */
async function assertOwnerExists(db: PrismaApiKeyClient, appRoot: string, owner: string): Promise<void> {
  if (!owner.trim()) return // create() names the empty --user
  const models = await ownerModels(appRoot)
  for (const { delegate, id } of models) {
    const value = idValue(owner, id.type)
    if (value === undefined) continue
    if ((await (db as unknown as Delegates)[delegate]?.count({ where: { [id.name]: value } })) ?? 0) return
  }
  if (models.length === 0) return // no owner model to check against
  const names = models.map(({ model, id }) => `${model}.${id.name}`).join(' or ')
  throw new CliUserError(
    `--user ${owner}: no ${names} is "${owner}"; keys act as an existing owner. Create that row first (npm run db:seed adds the development users), or pass --force to create the key anyway`,
  )
}

function idValue(text: string, type: string): unknown {
  if (type === 'String') return text
  if (!/^-?\d+$/.test(text)) return undefined
  return type === 'BigInt' ? BigInt(text) : Number(text)
}
