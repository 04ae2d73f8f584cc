/**
 * The runtime logs through a small interface so apps can route lines into their own logger; a
 * pino logger is one as it is. Every value that reaches a line is scrubbed of control bytes so a
 * caller cannot forge log lines.
 * @module
 */

export interface Logger {
  warn(line: string): void
  error(line: string): void
  /**
   * One structured line per request the runtime serves (pino's `info(fields, message)`). Absent:
   * no request lines, as with the console.
   */
  info?(fields: Record<string, unknown>, line: string): void
  /** pino's level check: a request line is built only when `info` is on. */
  isLevelEnabled?(level: string): boolean
}

const console_: Logger = {
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
}

let fallback: Logger = console_

/**
 * The logger of every part made without one of its own: the console until an app sets another
 * (`serve()` sets its pino logger), so an exchange, listener or delivery made before or after
 * logs the same way.
 */
export const consoleLogger: Logger = {
  warn: (line) => fallback.warn(line),
  error: (line) => fallback.error(line),
  info: (fields, line) => fallback.info?.(fields, line),
  isLevelEnabled: (level) => (fallback.info ? (fallback.isLevelEnabled?.(level) ?? true) : false),
}

/** Makes `logger` the runtime's default (see {@link consoleLogger}); undefined restores the console. */
export function setDefaultLogger(logger: Logger | undefined): void {
  fallback = logger ?? console_
}

/** Whether `logger` takes request lines now: it has `info`, at a level that lets it through. */
export function logsRequests(logger: Logger): boolean {
  return logger.info !== undefined && (logger.isLevelEnabled?.('info') ?? true)
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** A one-line, control-free, bounded rendering of any thrown value. */
export function scrub(value: unknown, max = 500): string {
  const text = value instanceof Error ? `${value.name}: ${value.message}` : String(value)
  const clean = text.replace(CONTROL, ' ')
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
}
