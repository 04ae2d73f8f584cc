/**
 * The runtime logs through a small interface so apps can route lines into their own logger.
 * Every value that reaches a line is scrubbed of control bytes so a caller cannot forge log lines.
 * @module
 */

export interface Logger {
  warn(line: string): void
  error(line: string): void
}

export const consoleLogger: Logger = {
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** A one-line, control-free, bounded rendering of any thrown value. */
export function scrub(value: unknown, max = 500): string {
  const text = value instanceof Error ? `${value.name}: ${value.message}` : String(value)
  const clean = text.replace(CONTROL, ' ')
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
}
