import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { T0, makeRecord } from '../../conformance-fixtures.js'
import { expectEachReadsTheOther } from '../../prisma/__fixture__/cross-read.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { PrismaStore } from '../../prisma/prisma-store.js'
import { prepareSqlite } from '../../prisma/prepare-sqlite.js'
import { SqliteExecutor, type Connection } from './executor.js'
import { SqliteStore } from './sqlite-store.js'
import { SqlStore } from '../sql-store.js'
import { WalSync } from './wal-sync.js'

// SqliteStore beside the app's Prisma client on one SQLite file, as an app runs them: each reads
// what the other wrote, and a write of the store waits out the app's write transaction.

describe('SqliteStore and PrismaStore on one SQLite file', () => {
  let database: TestDatabase
  let direct: SqliteStore
  let prisma: PrismaStore
  beforeAll(async () => {
    database = await openDatabase('sqlite')
    await prepareSqlite(database.db)
    direct = new SqliteStore(database.url)
    prisma = new PrismaStore(database.db)
  })
  afterAll(async () => {
    direct?.close()
    await database?.close()
  })

  it("each reads back exactly what the other wrote, and the app's Prisma models read both", () => expectEachReadsTheOther(database, direct, prisma))

  it('stores the same SQLite values whichever store wrote the row', async () => {
    const raw = new Database(database.url.replace(/^file:/, ''), { readonly: true })
    try {
      const columns = ['createdAt', 'statusTime', 'repliedWithMessage', 'messageIds', 'version']
      const select = `SELECT ${columns.map((c) => `typeof("${c}") AS "${c}Type", "${c}"`).join(', ')}, typeof("task") AS "taskType" FROM "A2ATask" WHERE "id" = ?`
      const [bySqlite, byPrisma] = ['alice-task', 'bob-task'].map((id) => raw.prepare(select).get(id))
      expect(bySqlite).toEqual(byPrisma)
      expect(bySqlite).toMatchObject({ createdAtType: 'text', statusTime: '2025-01-01T00:00:01.000+00:00', repliedWithMessage: 1, messageIds: '["m1","m3"]', taskType: 'text' })
      const auth = `SELECT "authentication", typeof("token") AS "tokenType" FROM "A2APushConfig" WHERE "taskId" = ? ORDER BY "id"`
      expect(raw.prepare(auth).all('alice-task')).toEqual(raw.prepare(auth).all('bob-task'))
    } finally {
      raw.close()
    }
  })

  /** Opens an interactive transaction on the app's client that writes, then waits for `release`. */
  function holdWriteLock() {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let wrote!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    const events: string[] = []
    const committed = database.db.$transaction(async (tx) => {
      await tx.a2APushConfig.createMany({ data: [{ taskId: 'held', id: `h-${Math.random()}`, owner: 'carol', url: 'https://h', createdAt: new Date(T0) }] })
      wrote()
      await released
      events.push('app committed')
    })
    return { written, release, committed, events }
  }

  it("a write waits while the app's client holds a write transaction across an await, then lands after it commits", async () => {
    const lock = holdWriteLock()
    await lock.written
    const started = performance.now()
    const write = direct.create(makeRecord({ id: 'contended', owner: 'carol' })).then(() => lock.events.push('store wrote'))
    // The store waits without blocking the thread: a timer fires on time, and its reads go on.
    await sleep(50)
    lock.events.push('timer fired')
    expect(performance.now() - started).toBeLessThan(500)
    expect(await direct.get('contended')).toBeUndefined()
    lock.release()
    await Promise.all([lock.committed, write])
    expect(lock.events).toEqual(['timer fired', 'app committed', 'store wrote'])
    expect(await prisma.get('contended')).toMatchObject({ id: 'contended', owner: 'carol' })
    expect(await database.db.a2APushConfig.count({ where: { taskId: 'held' } })).toBe(1)
  })

  it('gives up after its busy timeout, naming the database and the held write lock', async () => {
    const impatient = new SqliteStore(database.url, { busyTimeoutMs: 100 })
    const lock = holdWriteLock()
    try {
      await lock.written
      const started = performance.now()
      await expect(impatient.create(makeRecord({ id: 'never', owner: 'carol' }))).rejects.toThrow(/store\.db stayed locked for 100 ms: another connection .* held a write lock/)
      expect(performance.now() - started).toBeGreaterThanOrEqual(100)
    } finally {
      lock.release()
      await lock.committed
      impatient.close()
    }
    expect(await prisma.get('never')).toBeUndefined()
  })
})

describe('SqliteStore on its own', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openDatabase('sqlite')
  })
  afterAll(async () => {
    await database?.close()
  })

  it('puts the database file in WAL mode', async () => {
    // As a fresh connection finds the file (an open one notices the change at its next read).
    const journalMode = () => {
      const raw = new Database(database.url.replace(/^file:/, ''), { readonly: true })
      try {
        return raw.pragma('journal_mode', { simple: true })
      } finally {
        raw.close()
      }
    }
    expect(journalMode()).toBe('delete')
    const store = new SqliteStore(database.url)
    await store.get('any')
    store.close()
    expect(journalMode()).toBe('wal')
  })

  /** A store whose WAL syncs (real fdatasyncs) each wait for `open()`; `synced` lists the finished ones. */
  function gatedSyncs() {
    const file = database.url.replace(/^file:/, '')
    const synced: string[] = []
    const closedGate = () => {
      let open!: () => void
      return { promise: new Promise<void>((resolve) => (open = resolve)), resolve: () => open() }
    }
    let gate = closedGate()
    let fail: Error | undefined
    const wal = new WalSync(`${file}-wal`, async (handle) => {
      await gate.promise
      if (fail) throw fail
      await handle.datasync()
      synced.push('synced')
    })
    const connection = new Database(file, { fileMustExist: true, timeout: 0 })
    const store = new SqlStore(new SqliteExecutor(connection, file, 5000, wal))
    const settled = <T>(promise: Promise<T>) => {
      const state = { done: false }
      void promise.then(
        () => (state.done = true),
        () => (state.done = true),
      )
      return state
    }
    return {
      store,
      synced,
      settled,
      open: () => gate.resolve(),
      closeAgain: () => (gate = closedGate()),
      failWith: (error: Error) => (fail = error),
      close: () => {
        gate.resolve()
        wal.close()
        connection.close()
      },
    }
  }

  it('acknowledges a write only once the WAL holding its commit is synced to disk, and answers its own reads only once what they saw is', async () => {
    const gated = gatedSyncs()
    try {
      const record = makeRecord({ id: 'synced-1', owner: 'dave' })
      const write = gated.settled(gated.store.create(record))
      await sleep(30)
      // Committed (another connection reads it) but not acknowledged: its sync has not run.
      const other = new Database(database.url.replace(/^file:/, ''), { readonly: true })
      expect(other.prepare('SELECT "id" FROM "A2ATask" WHERE "id" = ?').get('synced-1')).toEqual({ id: 'synced-1' })
      other.close()
      expect(write.done).toBe(false)
      const read = gated.settled(gated.store.get('synced-1'))
      await sleep(30)
      expect(read.done).toBe(false)
      gated.open()
      await expect.poll(() => write.done && read.done).toBe(true)
      expect(gated.synced).toEqual(['synced'])
      // Nothing committed since the last sync: a read answers without one.
      gated.closeAgain()
      expect(await gated.store.get('synced-1')).toEqual(record)
      expect(gated.synced).toEqual(['synced'])
    } finally {
      gated.close()
    }
  })

  it('one sync acknowledges every write committed before it started, and a failed sync fails the writes it was for, by name', async () => {
    const gated = gatedSyncs()
    try {
      const first = gated.settled(gated.store.create(makeRecord({ id: 'batch-0', owner: 'dave' })))
      await sleep(20)
      // Committed while the first sync waits: covered by the next one.
      const rest = [1, 2, 3].map((i) => gated.store.create(makeRecord({ id: `batch-${i}`, owner: 'dave' })))
      await sleep(20)
      gated.open()
      await Promise.all(rest)
      expect(first.done).toBe(true)
      expect(gated.synced).toEqual(['synced', 'synced'])
      gated.failWith(new Error('EIO: the disk went away'))
      await expect(gated.store.create(makeRecord({ id: 'unsynced', owner: 'dave' }))).rejects.toThrow(
        /WAL file .*store\.db-wal could not be synced to disk: the write committed, but may not survive a power loss/,
      )
    } finally {
      gated.close()
    }
  })

  it("types better-sqlite3 as it is: its Database is the executor's Connection (the type check fails otherwise)", () => {
    const connection: Connection = new Database(':memory:')
    expect(connection.pragma('journal_mode', { simple: true })).toBe('memory')
    connection.close()
  })

  it('refuses an in-memory database, which a second connection cannot share', () => {
    for (const url of [':memory:', 'file::memory:', 'file::memory:?cache=shared', '']) {
      expect(() => new SqliteStore(url), url).toThrow(/in-memory SQLite database lives inside one connection/)
    }
  })

  it('refuses a file that does not exist rather than creating an empty database', () => {
    const missing = database.url.replace(/store\.db$/, 'missing.db')
    expect(() => new SqliteStore(missing)).toThrow(
      /^SqliteStore cannot open the database file ".*missing\.db" \(from "file:.*missing\.db"\): .*Create it with the app's migrations first \(npm run db:migrate\)/,
    )
    expect(existsSync(missing.replace(/^file:/, ''))).toBe(false)
  })
})
