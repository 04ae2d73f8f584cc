/**
 * The app's logger: pino at LOG_LEVEL (default info), JSON lines under NODE_ENV=production (or
 * LOG_FORMAT=json), one readable line per entry in development when the app has pino-pretty.
 * pino is loaded here only, so an app that never calls `serve()` does not load it.
 * @module
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Logger as PinoLogger } from 'pino'

export type { PinoLogger }

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** A pino logger for `env`; throws naming the accepted values when LOG_LEVEL is not a level. */
export async function createLogger(env: NodeJS.ProcessEnv = process.env): Promise<PinoLogger> {
  const level = env.LOG_LEVEL?.trim().toLowerCase() || 'info'
  if (!LEVELS.includes(level)) throw new Error(`LOG_LEVEL=${JSON.stringify(env.LOG_LEVEL)} is not a level; use one of ${LEVELS.join(', ')}`)
  const { pino } = await import('pino')
  const options = {
    level,
    // Nothing the runtime logs carries these; a line an app adds is cut too.
    redact: { paths: ['authorization', 'headers.authorization', '*.authorization', 'token', 'apiKey', 'password'], censor: '[redacted]' },
  }
  const pretty = env.NODE_ENV !== 'production' && env.LOG_FORMAT !== 'json' ? prettyStream() : undefined
  return pretty ? pino(options, pretty) : pino(options)
}

/** pino-pretty from the app's own dependencies (a development one), written synchronously; undefined without it. */
function prettyStream(): NodeJS.WritableStream | undefined {
  let build: (options: Record<string, unknown>) => NodeJS.WritableStream
  try {
    build = createRequire(join(process.cwd(), 'package.json'))('pino-pretty') as typeof build
  } catch {
    return undefined
  }
  return build({
    sync: true,
    colorize: Boolean(process.stdout.isTTY),
    ignore: 'pid,hostname',
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: true,
  })
}
