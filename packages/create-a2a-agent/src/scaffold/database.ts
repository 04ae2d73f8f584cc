/**
 * The PostgreSQL database in DATABASE_URL, made to exist before anything is written: with a driver
 * adapter Prisma's CLI never creates it (the classic engine's `ensureDatabaseExists` is skipped).
 * @module
 */
import pg from 'pg'
import { shellCommand } from './names.js'

/** `unavailable` carries why, and the command that fixes it when there is one (`createdb …`). */
export type DatabaseCheck = { kind: 'exists' } | { kind: 'created' } | { kind: 'missing'; command: string } | { kind: 'unavailable'; reason: string; command?: string }

/**
 * Connects to `url`; when its database is missing, creates it from the server's `postgres`
 * database, or with `create: false` only says so.
 */
export async function ensurePostgresDatabase(url: string, { create = true } = {}): Promise<DatabaseCheck> {
  const target = new URL(url)
  const name = decodeURIComponent(target.pathname.slice(1))
  const createdb = createdbCommand(target, name)
  const probe = await connect(url)
  if (probe.ok) return { kind: 'exists' }
  // 3D000: invalid_catalog_name, "database … does not exist".
  if (probe.code !== '3D000') {
    const server = `${target.hostname}:${target.port || 5432}`
    return {
      kind: 'unavailable',
      reason: `cannot reach PostgreSQL at ${server} as ${decodeURIComponent(target.username) || 'the default user'}: ${probe.message}. Start the server, or set DATABASE_URL to one you can reach`,
    }
  }
  if (!create) return { kind: 'missing', command: createdb }
  const maintenance = new URL(url)
  maintenance.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: maintenance.href })
  try {
    await admin.connect()
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`)
    return { kind: 'created' }
  } catch (error) {
    const { code, message } = error as { code?: string; message: string }
    // Another run created it in between.
    if (code === '42P04') return { kind: 'exists' }
    return { kind: 'unavailable', reason: `${name} does not exist, and creating it failed: ${message}`, command: createdb }
  } finally {
    await admin.end().catch(() => {})
  }
}

async function connect(url: string): Promise<{ ok: true } | { ok: false; code?: string; message: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  try {
    await client.connect()
    return { ok: true }
  } catch (error) {
    const { code, message } = error as { code?: string; message: string }
    return { ok: false, ...(code !== undefined && { code }), message: message || String(code) }
  } finally {
    await client.end().catch(() => {})
  }
}

/** `createdb` with the URL's host, port and user, the one command a person runs to fix it, quoted for the shell. */
function createdbCommand(url: URL, name: string): string {
  const flags = [url.hostname && ['-h', url.hostname], url.port && ['-p', url.port], url.username && ['-U', decodeURIComponent(url.username)]].filter((flag) => !!flag).flat()
  return shellCommand('createdb', ...flags, name)
}
