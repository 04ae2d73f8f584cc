/**
 * The mariadb pool of MysqlStore, MysqlJobQueue and MysqlPushOutbox: the app's own (given as
 * `pool`), or one of theirs made from the app's `mysql://` or `mariadb://` URL, checked once here
 * so all three refuse the same wrong URLs with the same words. Either way its lost connections are
 * logged (pool-errors.ts); `close` ends only a pool made here.
 * @module
 */
import { createRequire } from 'node:module'
import { scrub } from '../../../log/logger.js'
import { logPoolErrors, type PoolEvents } from './pool-errors.js'

/** What the three take: a pool to share, or a URL for a pool of their own. */
export interface PoolOrUrl<P> {
  pool?: P
  url?: string
}

/** The pool to use; `url` the own pool's (named when it cannot connect), undefined for a given pool. */
export interface MariadbPool<P> {
  pool: P
  url: string | undefined
  /** Ends the pool when it was made here; a given pool is the app's to end. */
  close(): Promise<void>
}

const EXAMPLE = 'mysql://root@127.0.0.1:3306/invoices'
const SCHEME = /^(mysql|mariadb):\/\//

/** The optional mariadb connector, loaded when a pool is made from a URL. */
export function loadMariadb<P>(): { createPool(options: Record<string, unknown>): P } {
  try {
    return createRequire(import.meta.url)('mariadb')
  } catch (error) {
    throw new Error('MySQL and MariaDB need the mariadb package: npm install mariadb', { cause: error })
  }
}

/**
 * `url` as the connector's options, or an error naming `who`, what was wrong and what to send: a
 * `mysql://` or `mariadb://` URL with the database in its path. The URL's query options (e.g.
 * `acquireTimeout=1000`) are kept, numbers and booleans as such, as the connector reads them.
 */
function mysqlUrlOptions(who: string, url: unknown): Record<string, unknown> {
  if (typeof url !== 'string' || !SCHEME.test(url))
    throw new Error(`${who} url must be a mysql:// or mariadb:// URL, e.g. ${EXAMPLE}; got one starting ${JSON.stringify(scrub(String(url).split('//')[0], 20))}`)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`${who} url is not a valid URL; send mysql://user:password@host:3306/<database>, its user and password URL-encoded`)
  }
  const database = decodeURIComponent(parsed.pathname.slice(1))
  if (!database) throw new Error(`${who} needs the database in its URL: mysql://user:password@host:3306/<database>`)
  const options: Record<string, unknown> = {}
  for (const [key, value] of parsed.searchParams) options[key] = value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value
  return {
    ...options,
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database,
  }
}

/**
 * `given.pool`, or a pool made from `given.url` with `settings` (over the URL's options), its
 * lost connections handed to `onLost`. Throws naming `who` when neither is given or the URL is wrong.
 */
export function mariadbPool<P extends PoolEvents & { end(): Promise<void> }>(
  who: string,
  given: PoolOrUrl<P> | undefined,
  settings: Record<string, unknown>,
  onLost: (error: Error) => void,
): MariadbPool<P> {
  if (given?.pool) {
    logPoolErrors(given.pool, onLost)
    return { pool: given.pool, url: undefined, close: async () => undefined }
  }
  const pool = loadMariadb<P>().createPool({ ...urlOptions(who, given), ...settings })
  logPoolErrors(pool, onLost)
  return { pool, url: given!.url, close: () => pool.end() }
}

/** Throws naming `who` unless `given` holds a pool or a right URL: for a pool made later than its owner. */
export function checkPoolOrUrl(who: string, given: PoolOrUrl<unknown> | undefined): void {
  if (!given?.pool) urlOptions(who, given)
}

function urlOptions(who: string, given: PoolOrUrl<unknown> | undefined): Record<string, unknown> {
  if (given?.url === undefined) throw new Error(`${who} needs pool (a mariadb pool) or url (the app's mysql:// URL, e.g. ${EXAMPLE})`)
  return mysqlUrlOptions(who, given.url)
}
