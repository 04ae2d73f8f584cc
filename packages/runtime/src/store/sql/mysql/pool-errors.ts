/**
 * What MysqlStore, MysqlJobQueue and MysqlPushOutbox do with their mariadb pools' failures. The
 * connector gives every pool a silent `error` listener of its own, so a lost database never ends
 * the process, but nothing would tell of it either: {@link logPoolErrors} does. And a pool that
 * cannot connect rejects with "pool timeout", naming neither the server nor why:
 * {@link unreachable} names both.
 * @module
 */
import { scrub } from '../../../log/logger.js'
import { isMysqlConnectionLoss } from './connection-loss.js'

/** The part of a mariadb pool (and of its connections) {@link logPoolErrors} uses. */
export interface PoolEvents {
  on(event: string, listener: (...args: any[]) => void): unknown
}

/** The error, with its cause (a pool's own errors say only "pool timeout", their cause why), on one scrubbed line. */
export function withCause(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause
  return cause === undefined ? scrub(error) : `${scrub(error)} (${scrub(cause)})`
}

/**
 * Hands `log` every connection the pool could not make (`error` on the pool) and every one that
 * died under it, idle or in use (`error` on the connection: killed, the server gone, a failover).
 * The pool drops those and opens new ones by itself.
 */
export function logPoolErrors(pool: PoolEvents, log: (error: Error) => void): void {
  pool.on('error', log)
  pool.on('connection', (connection: PoolEvents) => connection.on('error', log))
}

/** `url` with its password hidden and its options left out (they may hold credentials too): safe for an error message or a log line. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    parsed.search = ''
    return parsed.href
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//…@')
  }
}

/**
 * A rejection handler: when `error` is a pool's failure to connect (a refused login or a missing
 * database too: the pool times out on them), it throws an error naming `who`, the server (`url`,
 * without its password) and why; any other error (a failed statement), or any error of a pool
 * given without a URL (the app's own), as it is.
 */
export function unreachable(who: string, url: string | undefined): (error: unknown) => never {
  return (error) => {
    if (url === undefined || !isMysqlConnectionLoss(error)) throw error
    throw new Error(
      `${who} could not connect to ${withoutPassword(url)}: ${withCause(error)}. Check that MySQL or MariaDB is up at that host and port, and that the URL's user, password and database are right`,
      { cause: error },
    )
  }
}
