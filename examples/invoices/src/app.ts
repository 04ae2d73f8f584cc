import express, { type Express } from 'express'
import { createExchange, createToolRegistry, type Exchange, type ExchangeOptions, type PrincipalResolver, type Store } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
import { PrismaStore } from '@a2a-agent/runtime/prisma'
import { entityTools } from './a2a/entities.gen.js'
import type { Db } from './db.js'
import { overdue } from './overdue.js'

export interface AppOptions {
  db: Db
  resolvePrincipal: PrincipalResolver
  /** Where the A2A tasks live; by default the app's database through `db` (PrismaStore). */
  store?: Store
  /** Signs the agent card: a PEM, JWK or JWK Set (A2A_CARD_SIGNING_KEY); unsigned when absent. */
  signingKeys?: string
  overrides?: Partial<ExchangeOptions>
}

/**
 * The invoices agent: the `overdue` skill and the entity tools over A2A at /a2a (as `entity.*`
 * skills), the entity tools over MCP at /mcp, with its A2A tasks kept in the app's own database.
 */
export function createApp({ db, resolvePrincipal, store = new PrismaStore(db), signingKeys, overrides }: AppOptions): { app: Express; exchange: Exchange } {
  const exchange = createExchange({
    skills: [overdue(db)],
    tools: createToolRegistry(entityTools(db)),
    store,
    resolvePrincipal,
    signingKeys,
    card: {
      name: 'Invoices agent',
      description: 'Lists, reads and records your invoices and customers, and tells you what is overdue.',
      version: '0.1.0',
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    },
    ...overrides,
  })
  const app = express()
  app.use(a2aRouter(exchange))
  return { app, exchange }
}
