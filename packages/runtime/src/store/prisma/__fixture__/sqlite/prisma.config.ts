import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { defineConfig } from 'prisma/config'

// Prisma 6.19 with a driver adapter runs the wasm schema engine: no native engine download, so
// `generate` and `migrate diff` work offline. DATABASE_URL must still be set for every command.
const url = process.env.DATABASE_URL ?? 'file:./fixture.db'

// P1: the engine sends whole migration scripts to the shadow database through a parameterless
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
  // Paths here are relative to this file: the folder holds schema.prisma and the rendered a2a.prisma.
  schema: '.',
  adapter: async () => new SqliteForMigrate({ url }),
})
