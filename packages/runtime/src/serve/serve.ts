/**
 * An app's whole start-up in one call, so a scaffolded `main.ts` is a few lines and a runtime
 * upgrade reaches it: `.env`, the logger (pino, the runtime's too), OpenTelemetry from the standard
 * OTEL_* variables, the app, the store's readiness check, the health routes, listen, and a
 * graceful shutdown on SIGINT/SIGTERM that turns readiness off first. Anything that fails before
 * the app listens ends the process with one line, `<name>: <what to do>`, and exit code 1.
 * @module
 */
import type { RequestListener, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { deferringBackground, type BackgroundService } from '../core/background-service.js'
import { loadDotEnv } from '../env/dot-env.js'
import { createHttpServer, type HttpServerOptions } from '../http/http-server.js'
import { setDefaultLogger } from '../log/logger.js'
import { Readiness, withHealthRoutes } from './health.js'
import { createLogger, type PinoLogger } from './pino-logger.js'
import { parseRole, roleListener, runsBackground, type ProcessRole } from './roles.js'
import { startTelemetry } from './telemetry.js'

/** What an app's `start` hands back. */
export interface ServedApp {
  /** The app's request listener (`a2aListener(...)`), served behind `/healthz` and `/readyz`. */
  listener: RequestListener
  /** Its exchange or agent host: shutdown stops its runs; its background work (the lease sweep) runs under the worker and all roles only. */
  exchange?: { shutdown(options?: { timeoutMs?: number }): Promise<void>; background?(): BackgroundService[] }
  /**
   * The app's own background work (a `PushOutbox`'s deliveries, a job worker): started after
   * listening under the worker and all roles, stopped at shutdown (under every role) before the exchange.
   */
  background?: BackgroundService[]
  /** The task store: `ready()` is awaited before listening (a missing table fails start-up), `close()` at shutdown. */
  store?: { ready?(): Promise<void>; close?(): unknown }
  /** Whether the app's database answers now (e.g. ``() => db.$queryRaw`SELECT 1` ``); probed by /readyz. */
  check?: () => Promise<unknown>
  /** Called last at shutdown: the app's own connections (`db.$disconnect()`). */
  close?: () => unknown
  /** The line logged once listening, from the base URL (`http://localhost:3000`). */
  banner?: (url: string) => string
}

export interface ServeOptions {
  /** The app's name: it starts every start-up failure line. */
  name: string
  /** Builds the app, after `.env` is loaded and the logger is the runtime's; a throw is a start-up failure. */
  start(context: { env: NodeJS.ProcessEnv; logger: PinoLogger; role: ProcessRole }): ServedApp | Promise<ServedApp>
  /**
   * What this process serves and runs: `web` (the app's own routes), `agent` (the A2A bindings,
   * cards and MCP), `worker` (the background work), `all`; health under each. Default A2A_ROLE, else all.
   */
  role?: ProcessRole
  /** Default PORT, else 3000. */
  port?: number
  /** Default every address, as `listen(port)`. */
  host?: string
  /** The `.env` file to load (default `.env`), or false. */
  envFile?: string | false
  /** Default: pino from LOG_LEVEL, LOG_FORMAT and NODE_ENV (see createLogger). */
  logger?: PinoLogger
  /** How long shutdown waits for runs to settle and requests to end; default 5000 ms. */
  shutdownTimeoutMs?: number
  /**
   * How long /readyz answers 503 before the server stops taking connections: the time a balancer
   * needs to see it (a few probe intervals). Default SHUTDOWN_DRAIN_MS, else 0.
   */
  drainDelayMs?: number
  /** Longest wait for one readiness check; default 2000 ms. */
  readyTimeoutMs?: number
  /** Shut down on SIGINT and SIGTERM; default true. */
  signals?: boolean
  /** Exit the process on a start-up failure (code 1) and after a signal's shutdown (0); default true. Off: failures throw. */
  exit?: boolean
  server?: HttpServerOptions
}

export interface Serving {
  server: Server
  /** `http://localhost:<port>` */
  url: string
  logger: PinoLogger
  readiness: Readiness
  role: ProcessRole
  /** Readiness off, then the server, runs, store and app closed in that order; once. */
  stop(): Promise<void>
}

/** A start-up failure: its message is the one line printed. */
export class StartupError extends Error {
  override name = 'StartupError'
}

export async function serve(options: ServeOptions): Promise<Serving> {
  try {
    return await start(options)
  } catch (error) {
    const line = `${options.name}: ${oneLine(error)}`
    if (options.exit === false) throw new StartupError(line, { cause: error })
    console.error(line)
    process.exit(1)
  }
}

async function start(options: ServeOptions): Promise<Serving> {
  if (options.envFile !== false) loadDotEnv(options.envFile)
  const env = process.env
  const role = parseRole(options.role ?? env.A2A_ROLE)
  const logger = options.logger ?? (await createLogger(env))
  setDefaultLogger(logger)
  const telemetry = await startTelemetry(env, options.name)
  // An exchange made in start() leaves its sweep to us; one made before it swept at once, and is stopped here.
  const { built: app, services, handleLate } = await deferringBackground(() => options.start({ env, logger, role }))
  const listener = roleListener(app.listener, role)
  const sweeps = new Set([...services, ...(app.exchange?.background?.() ?? [])])
  const background = [...sweeps, ...(app.background ?? [])]
  let stopping: Promise<void> | undefined
  let started = false
  // An exchange the app makes later from start()'s context (a timer it set) follows the role too,
  // and stops at shutdown; one made while the services below start is started by their loop.
  handleLate((service) => {
    if (stopping) return
    background.push(service)
    if (started && runsBackground(role)) void (async () => service.start())().catch((error: unknown) => logger.error({ err: error }, 'a background service failed to start'))
  })
  if (!runsBackground(role)) for (const service of sweeps) await service.stop()
  await app.store?.ready?.()
  if (runsBackground(role)) for (const service of background) await service.start()
  started = true
  const readiness = new Readiness({
    check: async () => {
      await app.store?.ready?.()
      await app.check?.()
    },
    timeoutMs: options.readyTimeoutMs,
  })
  const server = createHttpServer(withHealthRoutes(listener, readiness), options.server)
  const port = options.port ?? (env.PORT ? Number(env.PORT) : 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT=${JSON.stringify(env.PORT)} is not a port number; set 0-65535`)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, ...(options.host === undefined ? [] : [options.host]), () => {
      server.off('error', reject)
      resolve()
    })
  })
  const url = `http://localhost:${(server.address() as AddressInfo).port}`
  const banner = role === 'all' || role === 'agent' ? (app.banner?.(url) ?? `${options.name} on ${url}`) : `${options.name} on ${url}`
  logger.info({ url, role }, role === 'all' ? banner : `${banner} (A2A_ROLE=${role})`)

  const drainDelayMs = options.drainDelayMs ?? (Number(env.SHUTDOWN_DRAIN_MS) || 0)
  const timeoutMs = options.shutdownTimeoutMs ?? 5000
  const stop = () =>
    (stopping ??= (async () => {
      readiness.close()
      logger.info({ drainDelayMs }, 'shutting down: /readyz answers 503')
      if (drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, drainDelayMs))
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      // Background work takes nothing new from here; a job or delivery in flight ends as its service decides.
      for (const service of background.toReversed()) await service.stop()
      await app.exchange?.shutdown({ timeoutMs })
      // Streams and slow requests past the deadline are cut.
      const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs)
      await closed
      clearTimeout(deadline)
      await app.store?.close?.()
      await app.close?.()
      await telemetry?.shutdown()
      logger.info('stopped')
      logger.flush?.()
    })())
  if (options.signals !== false) listenForSignals(stop, logger, options.exit !== false)
  return { server, url, logger, readiness, role, stop }
}

/** The first SIGINT or SIGTERM shuts down; a second one ends the process at once. */
function listenForSignals(stop: () => Promise<void>, logger: PinoLogger, exit: boolean): void {
  let received = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (received) return void process.exit(1)
      received = true
      logger.info({ signal }, 'signal received')
      stop().then(
        () => exit && process.exit(0),
        (error: unknown) => {
          logger.error({ error: oneLine(error) }, 'shutdown failed')
          if (exit) process.exit(1)
        },
      )
    })
  }
}

const oneLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim()
