import mariadb from 'mariadb'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { onMysql, openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import { pruneRows } from './transaction.js'

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
