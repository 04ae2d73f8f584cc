/**
 * Entity tools served to real API keys, for the generated tests of narrowed and tenant credentials:
 * the keys are made in the app's test database with {@link createApiKey} and resolved by
 * {@link apiKeyResolver}, as a deployed app resolves its callers. The tools' scope and tenant rules
 * are what is under test, so these tests need nothing of the app's test support but its database.
 * @module
 */
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { apiKeyResolver, createApiKey, type NewApiKey, type PrismaApiKeyClient } from '../auth/api-keys.js'
import type { EntityTool } from '../entity/entity-tool.js'
import { createToolRegistry } from '../entity/tool-registry.js'
import { createExchange } from '../exchange/exchange.js'
import { createHttpServer } from '../http/http-server.js'
import type { RawClient } from '../store/prisma/client.js'
import type { TestApp } from './entity-caller.js'
import { mounted } from './mount.js'

export interface ApiKeyApp<K extends string> extends TestApp<K> {
  close(): Promise<void>
}

/**
 * Serves `tools` over A2A (`/a2a`) and MCP (`/mcp`) on a free loopback port to one API key per
 * entry of `keys`, made in `db`; `tokens` holds each key under its entry's name.
 */
export async function serveToApiKeys<K extends string>(db: PrismaApiKeyClient & RawClient, tools: readonly EntityTool[], keys: Record<K, NewApiKey>): Promise<ApiKeyApp<K>> {
  const entries = Object.entries(keys) as [K, NewApiKey][]
  const made = await Promise.all(entries.map(async ([name, key]) => [name, (await createApiKey(db, key)).key] as const))
  const exchange = createExchange({
    card: { name: 'Entity tools', description: "The app's entity tools, to API keys", version: '0.0.0' },
    tools: createToolRegistry([...tools]),
    resolvePrincipal: apiKeyResolver(db),
  })
  const app = express()
  app.disable('x-powered-by')
  // Mounted as generated apps mount the runtime (A2A_TEST_MOUNT=router: inside Express).
  const server = createHttpServer(mounted(exchange, app)).listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokens: Object.fromEntries(made) as Record<K, string>,
    async close() {
      await exchange.shutdown({ timeoutMs: 1000 })
      server.closeAllConnections()
      server.close()
    },
  }
}
