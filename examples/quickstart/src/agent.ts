import express, { type Express } from 'express'
import { createExchange, type Exchange, type ExchangeOptions, type PrincipalResolver } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
import { ask, echo, fail, slow } from './skills.js'

export interface QuickstartOptions {
  /** Who is calling: in this example, development keys (`devKeyResolver`, `devKeysFromEnv`). */
  resolvePrincipal: PrincipalResolver
  overrides?: Partial<ExchangeOptions>
}

export function createQuickstart({ resolvePrincipal, overrides }: QuickstartOptions): { app: Express; exchange: Exchange } {
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
  const app = express()
  app.disable('x-powered-by')
  app.use(a2aRouter(exchange))
  return { app, exchange }
}
