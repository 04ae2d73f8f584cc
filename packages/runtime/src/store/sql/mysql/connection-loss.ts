/**
 * Whether a failure of the mariadb connector (or of Prisma over @prisma/adapter-mariadb) was the
 * connection's, not the SQL's: the executor sends an idempotent statement again, the transaction
 * helpers destroy the connection instead of handing it back, and the stores answer 503.
 * @module
 */

/** The pool found no connection in time (its acquireTimeout, 10 s by default): it tried to open one all along. */
export const POOL_TIMEOUT = 45028

/**
 * Error numbers of a connection that died under a statement (or could not be had): the server
 * killed it (KILL CONNECTION 1927, shutdown 1053), it went away (2006, 2013), and the connector's
 * own: already closed (45001), destroyed (45004), socket closed (45009), connect timeout (45012),
 * closed under a command (45013), socket error (45019), socket timeout (45026), no connection from
 * the pool in time (45028), too many connections (1040).
 */
const LOST_ERRNOS = new Set([1927, 1053, 2006, 2013, 1040, 45001, 45004, 45009, 45012, 45013, 45019, 45026, POOL_TIMEOUT])

/** Node's words for a dropped socket or a refused connection. */
const LOST_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'])

const lostErrno = (errno: unknown): boolean => LOST_ERRNOS.has(Number(errno))

/**
 * True when `error` says the statement's connection died (or none could be made), not that the
 * SQL failed: the connector's errors (`fatal` ones close their connection), and Prisma's wrapping
 * of them through @prisma/adapter-mariadb (`meta.driverAdapterError.cause`, kind `mysql` with the
 * error number, or TooManyConnections; a failed raw query's P2010 with the number as `meta.code`).
 */
export function isMysqlConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const { code, errno, fatal, sqlState } = error as { code?: unknown; errno?: unknown; fatal?: unknown; sqlState?: unknown }
  if (fatal === true || lostErrno(errno) || LOST_CODES.has(String(code)) || String(sqlState).startsWith('08')) return true
  const meta = (error as { meta?: { code?: unknown; driverAdapterError?: { cause?: { kind?: unknown; code?: unknown; state?: unknown } } } }).meta
  // P2010, a raw query that failed, names the driver's error number in `meta.code`.
  if (code === 'P2010' && lostErrno(meta?.code)) return true
  const adapted = meta?.driverAdapterError?.cause
  if (adapted?.kind === 'mysql' && (lostErrno(adapted.code) || String(adapted.state).startsWith('08'))) return true
  if (adapted?.kind === 'TooManyConnections') return true
  return error.cause !== undefined && isMysqlConnectionLoss(error.cause)
}
