/**
 * Whether a store failure says the database could not be reached (for now) rather than that the
 * request or the SQL was wrong: the request sent again shortly may well succeed, so the caller is
 * answered -31503 / HTTP 503 with Retry-After instead of -32603 (see A2AError.unavailable).
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'
import { isConnectionLoss } from './sql/postgres/executor.js'
import { isMysqlConnectionLoss } from './sql/mysql/connection-loss.js'

/** Prisma's own codes for a database it cannot reach, or a pool it waited on in vain. */
const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024'])

/** Seconds a caller is asked to wait while the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5

/**
 * True for a PostgreSQL connection that died or could not be made (57P01 admin shutdown, class 08,
 * ECONNRESET, "Connection terminated"…: isConnectionLoss), a MySQL one (KILL CONNECTION, a dropped
 * socket: isMysqlConnectionLoss), Prisma's codes for the same, and a
 * SQLite database still locked by another process once the busy wait ran out (SQLITE_BUSY).
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (isConnectionLoss(error) || isMysqlConnectionLoss(error) || sqliteBusy(error)) return true
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true
  const cause = (error as { cause?: unknown } | null)?.cause
  return cause !== undefined && cause !== error && isStoreUnavailable(cause)
}

/** better-sqlite3's code, or the one Prisma's SQLite adapter keeps as `originalCode`. */
function sqliteBusy(error: unknown): boolean {
  const { code, originalCode } = (error ?? {}) as { code?: unknown; originalCode?: unknown }
  return [code, originalCode].some((value) => typeof value === 'string' && value.startsWith('SQLITE_BUSY'))
}

/** -31503 for a request the store failed under for want of its database: sent again shortly, it may well succeed. */
export const storeUnavailable = (): A2AError =>
  A2AError.unavailable(
    `The agent lost its connection to its database while serving this request; send the same request again in ${RETRY_AFTER_SECONDS} s (a SendMessage repeated with its messageId is answered with the task it made, if it made one)`,
    RETRY_AFTER_SECONDS,
  )
