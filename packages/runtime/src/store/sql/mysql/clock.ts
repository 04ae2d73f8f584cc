/**
 * The database's time in ms, for tables whose times every process must read off one clock (the
 * push outbox's leases and backoffs): processes on hosts whose clocks differ then agree.
 * @module
 */
export const DATABASE_MS = 'CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)'
