import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Viewer } from '../../core/principal.js'
import type { TaskState } from '../../wire/types.js'
import { NON_TERMINAL, T0, TERMINAL, makeRecord, walk } from '../conformance-fixtures.js'
import { MemoryStore } from '../memory-store.js'
import type { ListQuery, TaskRecord } from '../store.js'
import { countingStatementRows, openDatabase, type Provider, type RowLog, type TestDatabase } from '../prisma/__fixture__/databases.js'
import { PrismaStore } from '../prisma/prisma-store.js'
import { SqliteStore } from './sqlite/sqlite-store.js'
import type { SqlStore } from './sql-store.js'
import { PrismaExecutor } from '../prisma/prisma-executor.js'
import { insertMessageIndex, insertTask } from './statements.js'

// Many rows across tiers, with MemoryStore as the oracle, and every SQL result's row count logged
// at Prisma's driver adapter (PrismaStore) or at better-sqlite3's statements (SqliteStore): list,
// trim and findByMessageId must filter in the database.

const OWNERS = ['alice', 'bob']
const TENANTS = [null, 'acme', 'globex']
const SCOPES = [null, 'read', 'read write']
const PER_TIER = 16
const STATES: readonly TaskState[] = [...TERMINAL, ...NON_TERMINAL]

function population(): TaskRecord[] {
  const records: TaskRecord[] = []
  for (const owner of OWNERS) {
    for (const tenant of TENANTS) {
      for (const scope of SCOPES) {
        for (let i = 0; i < PER_TIER; i++) {
          // Letters and digits only, so ties order alike under any PostgreSQL collation.
          const id = `${owner}${tenant?.[0] ?? 'n'}${scope === null ? 's' : scope.length}${String(i).padStart(2, '0')}`
          // Few distinct times, so ties on status time span page boundaries.
          const time = T0 + (i % 5) * 1000 + OWNERS.indexOf(owner)
          records.push(makeRecord({ id, owner, tenant, scope, state: STATES[i % STATES.length]!, time, contextId: `ctx-${i % 3}`, messageIds: [`m-${i}`, `shared-${i % 4}`] }))
        }
      }
    }
  }
  return records
}

const tiers = (): Viewer[] => OWNERS.flatMap((owner) => TENANTS.flatMap((tenant) => SCOPES.map((scope) => ({ owner, tenant, scope }))))

/** Queries over every tenant/scope combination (undefined = not filtered), and a few more filters. */
function queries(): ListQuery[] {
  const list: ListQuery[] = []
  for (const owner of [...OWNERS, 'carol']) {
    for (const tenant of [undefined, ...TENANTS]) {
      for (const scope of [undefined, ...SCOPES]) {
        list.push({ owner, pageSize: 10, ...(tenant !== undefined ? { tenant } : {}), ...(scope !== undefined ? { scope } : {}) })
      }
    }
  }
  list.push(
    { owner: 'alice', tenant: 'acme', scope: null, states: [...TERMINAL], pageSize: 4 },
    { owner: 'alice', tenant: null, states: ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'], statusAfter: T0 + 2000, pageSize: 3 },
    { owner: 'bob', scope: 'read', contextId: 'ctx-1', statusAfter: T0 + 1001, pageSize: 5 },
    { owner: 'bob', pageSize: 100 },
  )
  return list
}

/** Rows written as the store writes them, in few transactions: create() is the conformance suite's business. */
async function bulkLoad(database: TestDatabase, records: readonly TaskRecord[]): Promise<void> {
  const executor = new PrismaExecutor(database.db)
  const statements = records.flatMap((r) => [insertTask(r, JSON.stringify(r.task)), ...insertMessageIndex(r.owner, r.id, r.messageIds)])
  // A Prisma batch is a transaction that times out at 5 s: 500 statements, one round trip each, took longer on a loaded machine.
  for (let i = 0; i < statements.length; i += 100) await executor.batch(statements.slice(i, i + 100))
}

const targets: { name: 'PrismaStore' | 'SqliteStore'; provider: Provider }[] = [
  { name: 'PrismaStore', provider: 'sqlite' },
  { name: 'PrismaStore', provider: 'postgres' },
  { name: 'SqliteStore', provider: 'sqlite' },
]

for (const { name, provider } of targets) {
  describe(`${name} on ${provider}: filtering and trimming in SQL`, () => {
    const rowLog: RowLog = []
    let database: TestDatabase
    let store: SqlStore
    let stopCounting = () => {}
    const oracle = new MemoryStore()
    const records = population()

    beforeAll(async () => {
      database = await openDatabase(provider, name === 'PrismaStore' ? rowLog : undefined)
      store = name === 'PrismaStore' ? new PrismaStore(database.db) : new SqliteStore(database.url)
      // Its schema check reads the catalog once, as an app's start-up does: not one of the counted reads.
      await (store as PrismaStore | SqliteStore).ready()
      await bulkLoad(database, records)
      for (const record of records) await oracle.create(record)
      // After the bulk load through Prisma, which shares the driver: from here on only the store reads.
      if (store instanceof SqliteStore) stopCounting = countingStatementRows(rowLog)
    })
    afterAll(async () => {
      stopCounting()
      if (store instanceof SqliteStore) store.close()
      await database?.close()
    })

    /** Runs `call`, then returns the largest row count any of its SQL queries returned. */
    async function largestResult<T>(call: () => Promise<T>): Promise<[T, number]> {
      rowLog.length = 0
      const result = await call()
      return [result, Math.max(0, ...rowLog)]
    }

    it('lists every page of every tier and filter exactly as MemoryStore does, reading at most a page per query', async () => {
      for (const query of queries()) {
        const [pages, largest] = await largestResult(() => walk(store, query))
        expect(pages, JSON.stringify(query)).toEqual(await walk(oracle, query))
        expect(largest, JSON.stringify(query)).toBeLessThanOrEqual(query.pageSize + 1)
      }
    })

    it('finds a message id among hundreds through the index, reading only the matches', async () => {
      const [found, largest] = await largestResult(() => store.findByMessageId('alice', 'shared-1'))
      const expected = await oracle.findByMessageId('alice', 'shared-1')
      expect(found.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort())
      expect(found.length).toBe(TENANTS.length * SCOPES.length * (PER_TIER / 4))
      expect(largest).toBe(found.length)
    })

    it('trims each tier to its newest settled tasks as MemoryStore does, reading only the doomed ids', async () => {
      const gone: string[] = []
      for (const [i, tier] of tiers().entries()) {
        const keep = i % 4
        const [trimmed, largest] = await largestResult(() => store.trimSettled(tier, keep))
        const expected = await oracle.trimSettled(tier, keep)
        expect(trimmed, JSON.stringify(tier)).toEqual(expected)
        expect(trimmed.length).toBe(Math.max(0, PER_TIER / 2 - keep))
        expect(largest).toBeLessThanOrEqual(trimmed.length)
        gone.push(...trimmed)
      }
      // What is left is the same everywhere, down to every page and cursor.
      for (const query of queries()) expect(await walk(store, query), JSON.stringify(query)).toEqual(await walk(oracle, query))
      // Their message index rows went with them; the others' stayed.
      expect(await database.db.a2ATaskMessage.count({ where: { taskId: { in: gone } } })).toBe(0)
      expect(await database.db.a2ATaskMessage.count({})).toBe((records.length - gone.length) * 2)
    })

    it('trims more settled tasks than one statement deletes, in chunks, oldest first', async () => {
      const tier: Viewer = { owner: 'carol', tenant: null, scope: null }
      const many = Array.from({ length: 1100 }, (_, i) => makeRecord({ id: `carol${String(i).padStart(4, '0')}`, owner: 'carol', time: T0 + i * 1000, messageIds: [`c-${i}`] }))
      await bulkLoad(database, many)
      for (const record of many) await oracle.create(record)
      const trimmed = await store.trimSettled(tier, 2)
      expect(trimmed).toEqual(await oracle.trimSettled(tier, 2))
      expect(trimmed).toHaveLength(1098)
      expect((await store.list({ owner: 'carol', pageSize: 10 })).records.map((r) => r.id)).toEqual(['carol1099', 'carol1098'])
    })
  })
}
