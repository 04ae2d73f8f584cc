import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaPg } from '@prisma/adapter-pg'
import type { PoolConfig } from 'pg'
import { defineConfig } from 'prisma/config'

// Prisma 6.19 with a driver adapter runs the wasm schema engine: no native engine download, so it
// works offline and behind firewalls. DATABASE_URL must still be set for every command.
// This app runs on either database, and DATABASE_URL picks: a `file:` URL is SQLite (prisma/), a
// `postgresql://` URL is PostgreSQL (prisma-postgresql/, a copy of prisma/ for that provider).
// The two adapter classes below are what create-a2a-agent writes for each database.
const url = process.env.DATABASE_URL ?? 'file:./dev.db'
const postgresql = /^postgres(ql)?:\/\//.test(url)

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

interface Field {
  dataTypeID: number
}
type Patchable = { performIO(query: unknown): Promise<{ fields?: Field[] }>; startTransaction?(...args: unknown[]): Promise<unknown> }

// P2: adapter-pg 6.19 cannot decode the `name`/"char" columns (OID 19/18) of the engine's catalog
// queries (prisma/orm#27403): report them as text, and name[] as text[].
function patchPgTypes<T>(adapter: T): T {
  const target = adapter as unknown as Patchable
  const performIO = target.performIO.bind(target)
  target.performIO = async (query) => {
    const result = await performIO(query)
    for (const field of result.fields ?? []) {
      if (field.dataTypeID === 19 || field.dataTypeID === 18) field.dataTypeID = 25
      else if (field.dataTypeID === 1003) field.dataTypeID = 1009
    }
    return result
  }
  const startTransaction = target.startTransaction?.bind(target)
  if (startTransaction) target.startTransaction = async (...args) => patchPgTypes(await startTransaction(...args))
  return adapter
}

function pgConfig(text: string): PoolConfig {
  const parsed = new URL(text)
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1),
    // The CLI leaves the pool open after `migrate diff`; without this the process idles 10 s.
    allowExitOnIdle: true,
  }
}

// P3: given a connectionString, adapter-pg's shadow database is the main one, and it drops the
// shadow before closing its pool. Build the config from discrete fields and own the shadow's life.
class PgForMigrate extends PrismaPg {
  readonly #config: PoolConfig
  constructor(config: PoolConfig) {
    super(config)
    this.#config = config
  }
  override async connect() {
    return patchPgTypes(await super.connect())
  }
  override async connectToShadowDb() {
    const main = await this.connect()
    const name = `prisma_shadow_${crypto.randomUUID().replaceAll('-', '')}`
    await main.executeScript(`CREATE DATABASE "${name}"`)
    const shadow = patchPgTypes(await new PrismaPg({ ...this.#config, database: name }).connect())
    const dispose = shadow.dispose.bind(shadow)
    shadow.dispose = async () => {
      await dispose()
      await main.executeScript(`DROP DATABASE IF EXISTS "${name}"`)
      await main.dispose()
    }
    return shadow
  }
}

const folder = postgresql ? 'prisma-postgresql' : 'prisma'

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: folder,
  migrations: { path: `${folder}/migrations` },
  adapter: async () => (postgresql ? new PgForMigrate(pgConfig(url)) : new SqliteForMigrate({ url })),
})
