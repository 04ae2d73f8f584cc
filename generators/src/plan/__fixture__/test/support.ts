// Starts the app for the generated entity tests (test/entities/*.gen.test.ts). This file is yours:
// `a2a generate entities` created it once and never rewrites it; change it as the app grows.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createHttpServer, devKeyResolver } from '@a2a-agent/runtime'
import { createApp } from '../src/app.js'
import { createDb, type Db } from '../src/db.js'
import { createOwners, testOwners } from './owners.gen.js'

export interface TestApp {
  /** The running app's base URL, e.g. http://127.0.0.1:53124. */
  url: string
  /** The JSON-RPC endpoint the tests call. */
  a2aUrl: string
  /** Bearer tokens of two users; the tests check that neither reaches the other's rows. */
  tokens: { alice: string; bob: string }
  /** The app's database, for rows the tests make that agents cannot. */
  db: Db
  close(): Promise<void>
}

/**
 * The app on a free port, with development keys for two users, alice and bob (testOwners), whose
 * owner rows createOwners makes. Point the database at a test one before the tests run.
 */
export async function createTestApp(): Promise<TestApp> {
  const tokens = { alice: 'key-alice', bob: 'key-bob' }
  const db = createDb()
  await createOwners(db)
  const resolvePrincipal = devKeyResolver(`${testOwners.alice}:${tokens.alice},${testOwners.bob}:${tokens.bob}`)
  const { listener, exchange } = createApp({ db, resolvePrincipal })
  const server = createHttpServer(listener).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    a2aUrl: `http://127.0.0.1:${port}/a2a`,
    tokens,
    db,
    async close() {
      await exchange.shutdown({ timeoutMs: 1000 })
      server.closeAllConnections()
      server.close()
      await db.$disconnect()
    },
  }
}
