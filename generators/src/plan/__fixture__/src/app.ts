import type { RequestListener } from 'node:http'
import express from 'express'
import { a2aListener, createExchange, createToolRegistry, type Exchange } from '@a2a-agent/runtime'
import type { PrincipalResolver } from '@a2a-agent/runtime'
import { entityTools } from './a2a/entities.gen.js'
import type { Db } from './db.js'

export interface AppOptions {
  db: Db
  resolvePrincipal: PrincipalResolver
}

export interface App {
  listener: RequestListener
  exchange: Exchange
}

/** Wired as a scaffolded app is: entity tools over MCP at /mcp, and as skills over A2A at /a2a. */
export function createApp({ db, resolvePrincipal }: AppOptions): App {
  const exchange = createExchange({
    tools: createToolRegistry(entityTools(db)),
    resolvePrincipal,
    card: { name: 'Golden fixture', description: 'Invoices and notes', version: '0.0.0' },
  })
  return { listener: a2aListener(exchange, express()), exchange }
}
