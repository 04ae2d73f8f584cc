/**
 * Where CLI output goes. Commands write to an injected `Io` instead of `process.stdout`, so tests
 * capture output without spawning a process.
 * @module
 */
import { isAbsolute, relative } from 'node:path'

export interface Output {
  write(chunk: string): unknown
}

export interface Io {
  stdout: Output
  stderr: Output
}

export function printLines(out: Output, lines: readonly string[]): void {
  if (lines.length > 0) out.write(`${lines.join('\n')}\n`)
}

/**
 * An error the user can fix, without a stack: `a2a: <file> (entity <name>): <message>`. File and
 * entity are added only when the message does not already name them (the generator's usually do).
 */
export function formatUserError(error: { message: string; file?: string; entity?: string }, cwd: string): string {
  const { message } = error
  const shownFile = error.file && isAbsolute(error.file) ? relative(cwd, error.file) || '.' : error.file
  const file = shownFile && !message.includes(shownFile) ? shownFile : undefined
  const entity = error.entity && !message.includes(error.entity) ? `entity ${error.entity}` : undefined
  const where = file && entity ? `${file} (${entity}): ` : file || entity ? `${file ?? entity}: ` : ''
  return `a2a: ${where}${message}\n`
}

/** A bug: the message and where to look; the stack only when A2A_DEBUG is set. */
export function formatUnexpectedError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  if (process.env.A2A_DEBUG && error instanceof Error && error.stack) return `a2a: unexpected error: ${error.stack}\n`
  return `a2a: unexpected error: ${message}\nThis is likely a bug in a2a; rerun with A2A_DEBUG=1 for the stack trace and report it.\n`
}
