import express, { type Express } from 'express'
import { createExchange, createToolRegistry, type Exchange } from '@a2a-agent/runtime'
import type { PrincipalResolver } from '@a2a-agent/runtime'
import { a2aRouter } from '@a2a-agent/runtime/express'
import { entityTools } from './a2a/entities.gen.js'
import type { Db } from './db.js'

export interface AppOptions {
  db: Db
  resolvePrincipal: PrincipalResolver
}

export interface App {
  app: Express
  exchange: Exchange
}

/** Wired as a scaffolded app is: entity tools over MCP at /mcp, and as skills over A2A at /a2a. */
export function createApp({ db, resolvePrincipal }: AppOptions): App {
  const exchange = createExchange({
    tools: createToolRegistry(entityTools(db)),
    resolvePrincipal,
    card: { name: 'Golden fixture', description: 'Invoices and notes', version: '0.0.0' },
  })
  const app = express()
  app.use(a2aRouter(exchange))
  return { app, exchange }
}
