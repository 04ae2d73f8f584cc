import mariadb from 'mariadb'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { onMysql, openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { overDeadlocks, pruneRows, readCommitted } from './transaction.js'

// pruneRows on a real MariaDB table of this file's own database.

let database: TestDatabase
let pool: mariadb.Pool
beforeAll(async () => {
  database = await openDatabase('mysql')
  pool = mariadb.createPool(database.url.replace(/^mysql:/, 'mariadb:'))
}, 60_000)
afterAll(async () => {
  await pool?.end()
  await database?.close()
})

const OLD_DEAD = `state = 'dead' AND updated_at < ?`

beforeEach(async () => {
  await pool.query('DROP TABLE IF EXISTS kept_rows')
  await pool.query('CREATE TABLE kept_rows (id INT PRIMARY KEY, state VARCHAR(9) NOT NULL, updated_at BIGINT NOT NULL, KEY kept_rows_kept (state, updated_at)) ENGINE=InnoDB')
})

const ids = async (): Promise<number[]> => (await pool.query('SELECT id FROM kept_rows ORDER BY id')).map((row: { id: number }) => row.id)

it('deletes every row the condition holds for, past one batch, and no other', async () => {
  const rows = Array.from({ length: 1203 }, (_, i) => [i + 1, 'dead', 10])
  rows.push([2000, 'dead', 5000], [2001, 'pending', 10])
  await pool.batch('INSERT INTO kept_rows VALUES (?, ?, ?)', rows)
  await pruneRows(pool, 'kept_rows', OLD_DEAD, [1000])
  expect(await ids()).toEqual([2000, 2001])
})

it('keeps a row revived between the read that found it and its delete (a dead push redelivered meanwhile)', async () => {
  await pool.batch('INSERT INTO kept_rows VALUES (?, ?, ?)', [
    [1, 'dead', 10],
    [2, 'dead', 10],
  ])
  await onMysql(database.url, async (other) => {
    // Another process is reviving row 1: it holds the row while the prune finds both old ones.
    await other.query('START TRANSACTION')
    await other.query('SELECT id FROM kept_rows WHERE id = 1 FOR UPDATE')
    const pruned = pruneRows(pool, 'kept_rows', OLD_DEAD, [1000])
    await expect
      .poll(async () => Number((await other.query(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT id, state%FOR UPDATE'`))[0].n))
      .toBe(1)
    await other.query(`UPDATE kept_rows SET state = 'pending' WHERE id = 1`)
    await other.query('COMMIT')
    await pruned
  })
  expect(await ids()).toEqual([1])
})

it("sends a transaction InnoDB ended as a deadlock's victim again, which then commits", async () => {
  await pool.batch(
    'INSERT INTO kept_rows VALUES (?, ?, ?)',
    Array.from({ length: 20 }, (_, i) => [i + 1, 'pending', 0]),
  )
  const waitingOn = async (other: mariadb.Connection, statement: string) =>
    expect.poll(async () => Number((await other.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO = ?', [statement]))[0].n)).toBe(1)
  const second = 'UPDATE kept_rows SET updated_at = updated_at + 1 WHERE id = 1'
  await onMysql(database.url, async (other) => {
    // The other transaction writes more rows: InnoDB picks the smaller one, ours, as the victim.
    // READ COMMITTED: its scan keeps no lock on row 2, which it does not change.
    await other.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED')
    await other.query('START TRANSACTION')
    await other.query('UPDATE kept_rows SET updated_at = updated_at + 1 WHERE id <> 2')
    let attempts = 0
    const ours = overDeadlocks(() =>
      readCommitted(pool, async (query) => {
        attempts++
        await query('UPDATE kept_rows SET updated_at = updated_at + 1 WHERE id = 2')
        await query(second)
      }),
    )
    await waitingOn(other, second)
    // Row 2 is ours and row 1 the other's: each now waits on the other, and InnoDB ends ours.
    await other.query('UPDATE kept_rows SET updated_at = updated_at + 1 WHERE id = 2')
    await other.query('COMMIT')
    await ours
    expect(attempts).toBe(2)
  })
  const rows = await pool.query('SELECT id, updated_at FROM kept_rows WHERE id IN (1, 2, 3) ORDER BY id')
  expect(rows.map((row: { updated_at: number | bigint }) => Number(row.updated_at))).toEqual([2, 2, 1])
})
