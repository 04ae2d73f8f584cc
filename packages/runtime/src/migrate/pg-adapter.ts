/**
 * The node-postgres adapter as Prisma's CLI (the wasm schema engine) needs it: fixes for Prisma
 * 6.19 that every app would otherwise carry in its prisma.config.ts.
 * @module
 */
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'
import type { PoolConfig } from 'pg'

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

/** Discrete connection fields: adapter-pg ignores `database` next to a connectionString (P3). */
export function pgConfig(url: string): PoolConfig {
  const parsed = new URL(url)
  return {
    host: decodeURIComponent(parsed.hostname),
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.slice(1)),
    // The CLI leaves the pool open after `migrate diff`; without this the process idles 10 s.
    allowExitOnIdle: true,
  }
}

/** The adapter factory for `url` (a `postgresql://` URL). */
export async function pgMigrateAdapter(url: string): Promise<SqlMigrationAwareDriverAdapterFactory> {
  const { PrismaPg } = await import('@prisma/adapter-pg')

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
  return new PgForMigrate(pgConfig(url))
}
