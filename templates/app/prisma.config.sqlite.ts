import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { defineConfig } from 'prisma/config'

// Prisma 6.19 with a driver adapter runs the wasm schema engine: no native engine download, so it
// works offline and behind firewalls.
const url = process.env.DATABASE_URL ?? 'file:./dev.db'

// The engine sends whole migration scripts to the shadow database through a parameterless
// executeRaw, which better-sqlite3 prepares as one statement; route those through executeScript.
class SqliteForMigrate extends PrismaBetterSQLite3 {
  override async connectToShadowDb() {
    const adapter = await super.connectToShadowDb()
    const executeRaw = adapter.executeRaw.bind(adapter)
    adapter.executeRaw = async (query) => (query.args.length === 0 ? (await adapter.executeScript(query.sql), 0) : executeRaw(query))
    return adapter
  }
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma',
  migrations: { path: 'prisma/migrations' },
  adapter: async () => new SqliteForMigrate({ url }),
})
