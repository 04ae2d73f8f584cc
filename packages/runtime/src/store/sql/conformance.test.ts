import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeStoreConformance } from '../conformance.js'
import { T0, makeRecord, nextTask, sneakyChanges } from '../conformance-fixtures.js'
import { MemoryStore } from '../memory-store.js'
import { openDatabase, type Provider, type TestDatabase } from '../prisma/__fixture__/databases.js'
import { MysqlStore } from './mysql/mysql-store.js'
import { PostgresStore } from './postgres/postgres-store.js'
import { PrismaStore } from '../prisma/prisma-store.js'
import { prepareSqlite } from '../prisma/prepare-sqlite.js'
import { SqliteStore } from './sqlite/sqlite-store.js'
import { SQL_CAPABILITIES, type SqlStore } from './sql-store.js'
import type { CapabilityName } from '../capabilities.js'

// The same suite for PrismaStore on either provider, for SqliteStore on its own connection to the
// SQLite file and for PostgresStore and MysqlStore on their own pools, with the rows checked through the Prisma client.
// Each with the capabilities it declares: a store that lost one fails here.
const POSTGRES_CAPABILITIES: CapabilityName[] = [...SQL_CAPABILITIES, 'acceptOnce', 'claims', 'notifications', 'keptEvents', 'pushOutbox', 'jobRows', 'counters']
const targets: { name: string; provider: Provider; open: (database: TestDatabase) => SqlStore; capabilities: readonly CapabilityName[] }[] = [
  { name: 'PrismaStore', provider: 'sqlite', open: (database) => new PrismaStore(database.db), capabilities: SQL_CAPABILITIES },
  { name: 'PrismaStore', provider: 'postgres', open: (database) => new PrismaStore(database.db), capabilities: SQL_CAPABILITIES },
  { name: 'PrismaStore', provider: 'mysql', open: (database) => new PrismaStore(database.db), capabilities: SQL_CAPABILITIES },
  { name: 'SqliteStore', provider: 'sqlite', open: (database) => new SqliteStore(database.url), capabilities: [...SQL_CAPABILITIES, 'oneProcess'] },
  { name: 'PostgresStore', provider: 'postgres', open: (database) => new PostgresStore(database.url), capabilities: POSTGRES_CAPABILITIES },
  {
    name: 'PostgresStore with insertBeforeRun',
    provider: 'postgres',
    open: (database) => new PostgresStore(database.url, { insertBeforeRun: true }),
    capabilities: POSTGRES_CAPABILITIES.filter((capability) => capability !== 'claims'),
  },
  // As PostgresStore but the job rows (pg-boss's, PostgreSQL only).
  {
    name: 'MysqlStore',
    provider: 'mysql',
    open: (database) => new MysqlStore(database.url),
    capabilities: POSTGRES_CAPABILITIES.filter((capability) => capability !== 'jobRows'),
  },
]

/** Closes a SqliteStore's or PostgresStore's own connections; a PrismaStore has none. */
const release = async (store: unknown) => {
  if (store instanceof SqliteStore) store.close()
  if (store instanceof PostgresStore || store instanceof MysqlStore) await store.close()
}

for (const { name, provider, open, capabilities } of targets) {
  describe(`${name} on ${provider}`, () => {
    let database: TestDatabase
    beforeAll(async () => {
      database = await openDatabase(provider)
    })
    afterAll(async () => {
      await database?.close()
    })

    describeStoreConformance(`${name} (${provider})`, () => open(database), {
      capabilities,
      cleanup: async (store) => {
        await release(store)
        await database.clear()
      },
    })

    describe('writes', () => {
      let store: SqlStore
      beforeAll(() => {
        store = open(database)
      })
      afterAll(async () => {
        await release(store)
        await database.clear()
      })

      it('a stale update changes nothing, and of two racing writers exactly one lands', async () => {
        const record = makeRecord({ id: 'race', state: 'TASK_STATE_WORKING', messageIds: ['m1'] })
        await store.create(record)
        const moved = await store.update('race', 1, { task: nextTask(record, 'TASK_STATE_INPUT_REQUIRED', T0 + 1000) })
        const rowBefore = await database.db.a2ATask.findUnique({ where: { id: 'race' } })
        // Stale, with a new body and a new message: the row and the message index stay as they were.
        const stale = await store.update('race', 1, { task: nextTask(record, 'TASK_STATE_FAILED', T0 + 2000), messageIds: ['m1', 'm2'] })
        expect(stale).toBeUndefined()
        expect(await database.db.a2ATask.findUnique({ where: { id: 'race' } })).toEqual(rowBefore)
        expect(await store.findByMessageId('alice', 'm2')).toEqual([])
        expect(await store.get('race')).toEqual(moved)
        const results = await Promise.all(
          (['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'] as const).map((state, i) =>
            store.update('race', 2, { task: nextTask(record, state, T0 + 3000 + i), messageIds: ['m1', `m-${state}`] }),
          ),
        )
        const winners = results.filter((r) => r !== undefined)
        expect(winners).toHaveLength(1)
        expect(winners[0]!.version).toBe(3)
        expect(await store.get('race')).toEqual(winners[0])
        // Only the winner's message is indexed.
        const indexed = await database.db.a2ATaskMessage.findMany({ where: { taskId: 'race' } })
        expect(indexed.map((row) => row.messageId).sort()).toEqual([...winners[0]!.messageIds].sort())
      })

      it('owner, tenant and scope are written at creation and never by update', async () => {
        const record = makeRecord({ id: 'coords', owner: 'alice', tenant: 'acme', scope: 'read', state: 'TASK_STATE_WORKING', messageIds: ['m1'] })
        await store.create(record)
        const changes = { ...sneakyChanges(nextTask(record, 'TASK_STATE_COMPLETED', T0 + 5000)), messageIds: ['m1', 'm2'] }
        expect(await store.update('coords', 1, changes)).toMatchObject({ owner: 'alice', tenant: 'acme', scope: 'read', version: 2 })
        const row = await database.db.a2ATask.findUnique({ where: { id: 'coords' } })
        expect(row).toMatchObject({ id: 'coords', owner: 'alice', tenant: 'acme', scope: 'read', skill: 'echo', contextId: 'ctx-coords', version: 2 })
        expect(row!.statusState).toBe('TASK_STATE_COMPLETED')
        expect(row!.statusTime.getTime()).toBe(T0 + 5000)
        // The new message is indexed under the creating owner, not the one the changes named.
        expect((await store.findByMessageId('alice', 'm2')).map((r) => r.id)).toEqual(['coords'])
        expect(await store.findByMessageId('mallory', 'm2')).toEqual([])
        expect(await store.list({ owner: 'alice', tenant: 'acme', scope: 'read', pageSize: 10 })).toMatchObject({ total: 1 })
        expect(await store.list({ owner: 'mallory', pageSize: 10 })).toMatchObject({ total: 0 })
      })

      it('stores task JSON as MemoryStore does: Prisma-looking keys, nulls, undefined in arrays, unicode', async () => {
        const memory = new MemoryStore()
        const record = makeRecord({ id: 'json' })
        record.task.metadata = {
          when: { $type: 'DateTime', value: '2020-01-01T00:00:00Z' },
          raw: { $type: 'Raw', value: { x: 1 } },
          list: [1, null, undefined, 'z', { a: undefined }],
          text: 'émoji 🎉 \u2028 "quoted"',
          big: 2 ** 53 - 1,
        }
        await store.create(record)
        await memory.create(record)
        expect(await store.get('json')).toEqual(await memory.get('json'))
        expect((await store.get('json'))!.task.metadata!.list).toEqual([1, null, null, 'z', {}])
      })
    })

    if (name === 'PrismaStore' && provider === 'sqlite') {
      it('prepareSqlite turns on WAL and a 5 s busy timeout', async () => {
        await prepareSqlite(database.db)
        expect(await database.db.$queryRawUnsafe('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }])
        expect(await database.db.$queryRawUnsafe('PRAGMA busy_timeout')).toEqual([{ timeout: 5000n }])
      })
    }
  })
}
