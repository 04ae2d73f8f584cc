import type { RequestListener } from 'node:http'
import express from 'express'
import { a2aListener, createExchange, type Exchange, type ExchangeOptions, type PrincipalResolver } from '@a2a-agent/runtime'
import { ask, echo, fail, slow } from './skills.js'

export interface QuickstartOptions {
  /** Who is calling: in this example, development keys (`devKeyResolver`, `devKeysFromEnv`). */
  resolvePrincipal: PrincipalResolver
  overrides?: Partial<ExchangeOptions>
}

export function createQuickstart({ resolvePrincipal, overrides }: QuickstartOptions): { listener: RequestListener; exchange: Exchange } {
  const exchange = createExchange({
    skills: [echo, ask, slow, fail],
    resolvePrincipal,
    card: {
      name: 'Quickstart agent',
      description: 'Echo, ask, slow and fail: the four shapes of an A2A task.',
      version: '0.1.0',
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    },
    ...overrides,
  })
  // The app's own routes go on `app`; the A2A routes are answered before Express sees the request.
  const app = express()
  app.disable('x-powered-by')
  return { listener: a2aListener(exchange, app), exchange }
}
