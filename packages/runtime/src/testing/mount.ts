/**
 * The two ways an app mounts the runtime, for tests that must hold on both: `a2aListener` in
 * front of the app (what generated apps do, the default) or `a2aRouter` / `agentsRouter` inside
 * it. A2A_TEST_MOUNT=router runs a suite on the routers (the root vitest config has a project
 * that does).
 * @module
 */
import type { RequestListener } from 'node:http'
import type { Express } from 'express'
import { AgentHost } from '../agents/agent-host.js'
import type { Exchange } from '../exchange/exchange.js'
import { a2aRouter, agentsRouter } from '../host/express-router.js'
import { a2aListener } from '../host/a2a-listener.js'

export type Mount = 'listener' | 'router'

export function testMount(): Mount {
  const mount = process.env.A2A_TEST_MOUNT ?? 'listener'
  if (mount !== 'listener' && mount !== 'router') throw new Error(`A2A_TEST_MOUNT=${mount}: use "listener" or "router"`)
  return mount
}

/** `app` with `target`'s routes mounted the `mount` way, as the server's request listener. */
export function mounted(target: Exchange | AgentHost, app: Express, mount: Mount = testMount()): RequestListener {
  if (mount === 'listener') return a2aListener(target, app)
  return app.use(target instanceof AgentHost ? agentsRouter(target) : a2aRouter(target))
}
