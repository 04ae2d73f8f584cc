// Starts the app for the generated entity tests (test/entities/*.gen.test.ts). This file is yours:
// `a2a generate entities` created it once and never rewrites it; change it as the app grows.
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { devKeyResolver } from '@a2a-agent/runtime'
import { prepareSqlite } from '@a2a-agent/runtime/prisma'
import { createApp } from '../src/app.js'
import { createDb } from '../src/db.js'

export interface TestApp {
  /** The running app's base URL, e.g. http://127.0.0.1:53124. */
  url: string
  /** Bearer tokens of two users; the tests check that neither reaches the other's rows. */
  tokens: { alice: string; bob: string }
  close(): Promise<void>
}

const migrations = new URL('../prisma/migrations/', import.meta.url)

/** A fresh SQLite database with every migration applied, in its own temporary folder. */
function migratedDatabase(): { url: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'invoices-test-'))
  const file = join(dir, 'test.db')
  const sqlite = new Database(file)
  for (const name of readdirSync(migrations).filter((entry) => /^\d/.test(entry)).sort()) {
    sqlite.exec(readFileSync(new URL(`${name}/migration.sql`, migrations), 'utf8'))
  }
  // Invoices and customers belong to users: the owners the tests act as must exist.
  const addUser = sqlite.prepare('INSERT INTO "User" ("id", "email", "name") VALUES (?, ?, ?)')
  addUser.run('alice', 'alice@example.com', 'Alice')
  addUser.run('bob', 'bob@example.com', 'Bob')
  sqlite.close()
  return { url: `file:${file}`, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The app on a free port and its own database, with development keys for alice and bob. */
export async function createTestApp(): Promise<TestApp> {
  const tokens = { alice: 'key-alice', bob: 'key-bob' }
  const database = migratedDatabase()
  const db = createDb(database.url)
  await prepareSqlite(db)
  const resolvePrincipal = devKeyResolver(`alice:${tokens.alice},bob:${tokens.bob}`)
  const { app, exchange } = createApp({ db, resolvePrincipal })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    tokens,
    async close() {
      await exchange.shutdown({ timeoutMs: 1000 })
      server.closeAllConnections()
      server.close()
      await db.$disconnect()
      database.remove()
    },
  }
}
