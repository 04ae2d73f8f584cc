// Starts the app for the tests (test/*.test.ts and the generated test/entities/*.gen.test.ts).
// This file is yours: change it as the app grows.
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import mariadb from 'mariadb'
import { createHttpServer, devKeyResolver } from '@a2a-agent/runtime'
import { A2A_PATH, createApp } from '../src/app.js'
import { createDb, type Db } from '../src/db.js'
import { createOwners, testOwners } from './owners.gen.js'

export interface TestApp {
  /** The running app's base URL, e.g. http://127.0.0.1:53124. */
  url: string
  /** The JSON-RPC endpoint the tests call (A2A_PATH on the app). */
  a2aUrl: string
  /** Bearer tokens of two users; the tests check that neither reaches the other's rows. */
  tokens: { alice: string; bob: string }
  /** The app's database, for rows the tests make that agents cannot. */
  db: Db
  close(): Promise<void>
}

const migrations = new URL('../prisma/migrations/', import.meta.url)
const serverUrl = new URL(process.env.DATABASE_URL ?? 'mysql://root@localhost:3306/mysql')
const server = { host: serverUrl.hostname, port: Number(serverUrl.port || 3306), user: decodeURIComponent(serverUrl.username), password: decodeURIComponent(serverUrl.password) }

/** A throwaway database on DATABASE_URL's server with every migration applied; dropped by remove(). */
async function migratedDatabase(): Promise<{ url: string; remove(): Promise<void> }> {
  const name = `test_${crypto.randomUUID().replaceAll('-', '')}`
  const admin = await mariadb.createConnection(server)
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  const remove = async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``)
    await admin.end()
  }
  const url = new URL(serverUrl.href)
  url.pathname = `/${name}`
  try {
    const client = await mariadb.createConnection({ ...server, database: name, multipleStatements: true })
    try {
      for (const entry of readdirSync(migrations).filter((folder) => /^\d/.test(folder)).sort()) {
        await client.query(readFileSync(new URL(`${entry}/migration.sql`, migrations), 'utf8'))
      }
    } finally {
      await client.end()
    }
  } catch (error) {
    await remove()
    throw error
  }
  return { url: url.href, remove }
}

/**
 * The app on a free port and its own database, with development keys for alice and bob, whose
 * owner rows test/owners.gen.ts makes (it follows the schema's owner model).
 */
export async function createTestApp(): Promise<TestApp> {
  // Fresh tokens per run: nothing outside this test process knows them.
  const tokens = { alice: `test-alice-${crypto.randomUUID()}`, bob: `test-bob-${crypto.randomUUID()}` }
  const database = await migratedDatabase()
  const db = createDb(database.url)
  try {
    await createOwners(db)
  } catch (error) {
    await db.$disconnect()
    await database.remove()
    throw error
  }
  const resolvePrincipal = devKeyResolver(`${testOwners.alice}:${tokens.alice},${testOwners.bob}:${tokens.bob}`)
  const { listener, exchange } = createApp({ db, resolvePrincipal })
  const server = createHttpServer(listener).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    a2aUrl: `http://127.0.0.1:${port}${A2A_PATH}`,
    tokens,
    db,
    async close() {
      await exchange.shutdown({ timeoutMs: 1000 })
      server.closeAllConnections()
      server.close()
      await db.$disconnect()
      await database.remove()
    },
  }
}
