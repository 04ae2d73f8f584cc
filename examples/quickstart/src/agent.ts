import express, { type Express } from 'express'
import { createExchange, devKeyResolver, type Exchange, type ExchangeOptions } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
import { ask, echo, fail, slow } from './skills.js'

export interface QuickstartOptions {
  /** Development-only bearer keys, "owner:token" pairs separated by commas. */
  devKeys: string
  overrides?: Partial<ExchangeOptions>
}

export function createQuickstart({ devKeys, overrides }: QuickstartOptions): { app: Express; exchange: Exchange } {
  const exchange = createExchange({
    skills: [echo, ask, slow, fail],
    resolvePrincipal: devKeyResolver(devKeys),
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
