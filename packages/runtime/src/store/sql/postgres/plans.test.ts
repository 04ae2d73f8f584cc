import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { T0, makeRecord, nextTask } from '../../conformance-fixtures.js'
import type { StreamResponse } from '../../../wire/types.js'
import { keepingEvents } from './notifications.js'
import { openDatabase, type TestDatabase } from '../../prisma/__fixture__/databases.js'
import type { Sql } from '../sql.js'
import * as statements from '../statements.js'
import { trimSettledPast } from './postgres-store.js'
import { selectTasks } from './reads.js'
import { INDEX_PROBES_ONLY, releaseStatement, takeStatement } from './counters.js'
import { POSTGRES } from '../dialect.js'

// PostgresStore's hot statements are named prepared statements, whose generic plan PostgreSQL
// keeps for the connection's life: a plan made while the tables were empty must still probe the
// index by its whole key once they hold many rows (an `= ANY(array)` form once kept a plan that
// used the owner only and filtered every row of it, 7 ms per send at 20,000 rows).

let database: TestDatabase
let client: pg.Client
beforeAll(async () => {
  database = await openDatabase('postgres')
  client = new pg.Client({ connectionString: database.url })
  await client.connect()
  // Stale statistics on purpose, as a young table has them: no ANALYZE replans behind the test.
  await client.query('ALTER TABLE "A2ATaskMessage" SET (autovacuum_enabled = false)')
  await client.query('SET plan_cache_mode = force_generic_plan')
})
afterAll(async () => {
  await client?.end()
  await database?.close()
})

const literal = (value: unknown): string => {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value instanceof Date) return client.escapeLiteral(value.toISOString())
  return client.escapeLiteral(String(value))
}

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function* nodes(plan: Record<string, any>): Generator<Record<string, any>> {
  yield plan
  for (const child of plan.Plans ?? []) yield* nodes(child)
}

/** Runs the prepared statement under EXPLAIN ANALYZE and rolls back what it wrote. */
async function explain(name: string, statement: Sql): Promise<Record<string, any>[]> {
  await client.query('BEGIN')
  try {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${statement.values.map(literal).join(', ')})`)
    return [...nodes(rows[0]['QUERY PLAN'][0].Plan)]
  } finally {
    await client.query('ROLLBACK')
  }
}

it('keeps the claiming insert an index probe by owner and message id, on a plan made while the tables were empty', async () => {
  const claim = (messageIds: string[]) => {
    const record = makeRecord({ id: `task-${messageIds.join('-')}`, owner: 'alice', messageIds })
    return statements.insertTaskUnlessAccepted(POSTGRES, record, JSON.stringify(record.task))
  }
  const shapes = [claim(['fresh-1']), claim(['fresh-1', 'fresh-2'])]
  for (const [i, statement] of shapes.entries()) {
    await client.query(`PREPARE claim${i} AS ${statement.text}`)
    await explain(`claim${i}`, statement)
  }
  await client.query(`INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId") SELECT 'alice', 'm-' || g, 't-' || g FROM generate_series(1, 20000) AS g`)

  for (const [i, statement] of shapes.entries()) {
    const plan = await explain(`claim${i}`, statement)
    const touching = plan.filter((node) => node['Relation Name'] === 'A2ATaskMessage' || node['Index Name']?.startsWith('A2ATaskMessage'))
    const keyed = touching.filter((node) => node['Index Cond'] !== undefined)
    expect(keyed.length).toBeGreaterThan(0)
    for (const node of keyed) expect(node['Index Cond']).toContain('messageId')
    for (const node of touching) {
      expect(node['Node Type']).not.toBe('Seq Scan')
      expect(node['Rows Removed by Filter'] ?? 0).toBe(0)
      expect(node['Rows Removed by Index Recheck'] ?? 0).toBe(0)
    }
  }
})

it('keeps the retention trim on indexes, on plans made while the tables were empty or young, however many dead rows the tier leaves behind', async () => {
  const tier = { owner: 'trimmer', tenant: null, scope: null }
  const trim = trimSettledPast(tier, 64)
  const tables = ['A2ATask', 'A2ATaskMessage', 'A2ATaskEvent', 'A2APushConfig']
  await client.query(`TRUNCATE ${tables.map((table) => `"${table}"`).join(', ')}`)
  for (const table of tables) await client.query(`ALTER TABLE "${table}" SET (autovacuum_enabled = false)`)
  // Tasks of the tier, each with its message, its two events and a push config.
  const fill = async (from: number, to: number) => {
    const ids = `SELECT 'trim-' || g AS "id", g FROM generate_series(${from}, ${to}) AS g`
    await client.query(`INSERT INTO "A2ATask" ("id", "contextId", "owner", "skill", "version", "task", "messageIds", "createdAt", "updatedAt", "statusState", "statusTime")
      SELECT "id", 'ctx-' || g, 'trimmer', 'echo', 3, '{}', '[]', now(), now(), 'TASK_STATE_COMPLETED', now() + g * interval '1 ms' FROM (${ids}) AS i`)
    await client.query(`INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId") SELECT 'trimmer', 'm-' || g, "id" FROM (${ids}) AS i`)
    await client.query(
      `INSERT INTO "A2ATaskEvent" ("taskId", "version", "owner", "event", "createdAt") SELECT "id", v, 'trimmer', '{}', now() FROM (${ids}) AS i, generate_series(2, 3) AS v`,
    )
    await client.query(
      `INSERT INTO "A2APushConfig" ("taskId", "id", "owner", "url", "createdAt") SELECT "id", 'hook', 'trimmer', 'https://example.com/hook', now() FROM (${ids}) AS i`,
    )
  }
  const emptyAll = async () => {
    for (const table of tables) await client.query(`DELETE FROM "${table}"`)
  }
  await client.query(`PREPARE trim_empty AS ${trim.text}`)
  await explain('trim_empty', trim)
  // An agent's first trim comes once its tier holds 65 settled tasks.
  await fill(1, 65)
  await client.query(`PREPARE trim_young AS ${trim.text}`)
  await explain('trim_young', trim)
  // A busy tier between two vacuums: 20,000 tasks trimmed (dead rows in every table), the newest 64 kept and 4 past them.
  await emptyAll()
  await fill(100, 20100)
  await emptyAll()
  await fill(30001, 30068)

  for (const name of ['trim_empty', 'trim_young']) {
    const plan = await explain(name, trim)
    for (const node of plan) expect(node['Node Type'], name).not.toBe('Seq Scan')
    // The four past the newest 64 go (the other deletes return no rows to count).
    expect(plan.find((node) => node['Node Type'] === 'ModifyTable' && node['Relation Name'] === 'A2ATask')?.['Actual Rows']).toBe(4)
    // Each table is probed once per doomed task, through its task-id index.
    for (const table of tables) expect(plan.filter((node) => node['Index Name']?.startsWith(table) && node['Actual Loops'] === 4).length, `${name} ${table}`).toBeGreaterThan(0)
  }
})

it('keeps the settling update a primary-key write, on a plan made while the tables were empty', async () => {
  const record = makeRecord({ id: 'settled-1', owner: 'updater', state: 'TASK_STATE_WORKING' })
  const task = nextTask(record, 'TASK_STATE_COMPLETED', T0 + 1000)
  const events: StreamResponse[] = [
    { artifactUpdate: { taskId: record.id, contextId: record.contextId, artifact: { artifactId: 'a1', parts: [{ text: 'ok' }] } } },
    { statusUpdate: { taskId: record.id, contextId: record.contextId, status: task.status } },
  ]
  const update = keepingEvents(statements.updateTask({ id: record.id, expectedVersion: 1, task, taskJson: JSON.stringify(task), events, versions: 2 }), events)
  const tables = ['A2ATask', 'A2ATaskEvent', 'A2APushConfig']
  await client.query(`TRUNCATE ${tables.map((table) => `"${table}"`).join(', ')}`)
  for (const table of tables) await client.query(`ALTER TABLE "${table}" SET (autovacuum_enabled = false)`)
  await client.query(`PREPARE settle AS ${update.text}`)
  await explain('settle', update)
  // 20,000 of the owner's tasks (the one updated among them), each with events and a push config.
  await client.query(`INSERT INTO "A2ATask" ("id", "contextId", "owner", "skill", "version", "task", "messageIds", "createdAt", "updatedAt", "statusState", "statusTime")
    SELECT 'settled-' || g, 'ctx-' || g, 'updater', 'echo', 1, '{}', '[]', now(), now(), 'TASK_STATE_WORKING', now() FROM generate_series(1, 20000) AS g`)
  await client.query(
    `INSERT INTO "A2ATaskEvent" ("taskId", "version", "owner", "event", "createdAt") SELECT 'other-' || g, 2, 'updater', '{}', now() FROM generate_series(1, 20000) AS g`,
  )
  await client.query(
    `INSERT INTO "A2APushConfig" ("taskId", "id", "owner", "url", "createdAt") SELECT 'other-' || g, 'hook', 'updater', 'https://example.com/hook', now() FROM generate_series(1, 20000) AS g`,
  )

  const plan = await explain('settle', update)
  for (const node of plan) expect(node['Node Type']).not.toBe('Seq Scan')
  expect(plan.find((node) => node['Node Type'] === 'ModifyTable' && node['Relation Name'] === 'A2ATask')?.['Actual Rows']).toBe(1)
  const probes = plan.filter((node) => node['Index Name'] !== undefined)
  expect(probes.find((node) => node['Index Name'] === 'A2ATask_pkey')?.['Index Cond']).toContain('id')
  expect(probes.find((node) => node['Index Name'] === 'A2APushConfig_pkey')?.['Index Cond']).toContain('taskId')
  for (const node of probes) expect(node['Rows Removed by Filter'] ?? 0).toBe(0)
})

it("keeps a batch of limit takes on its keys' index entries, on a plan made while the table was empty", async () => {
  const at = new Date(T0)
  const take = takeStatement(
    [
      { key: 'runs alice', id: 'r1', limit: 16, ttlMs: 30_000 },
      { key: 'runs bob', id: 'r2', limit: 16, ttlMs: 30_000 },
      { key: 'runs alice', id: 'r3', limit: 16, ttlMs: 30_000 },
    ],
    at,
  )
  await client.query('ALTER TABLE "A2ALimitEntry" SET (autovacuum_enabled = false)')
  await client.query(`PREPARE take AS ${take.text}`)
  await explain('take', take)
  // Other owners' entries, live and expired (a quota keeps one per turn for its window), and a few of alice's.
  await client.query(
    `INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt")
    SELECT 'turns owner-' || (g % 500), 'e' || g, $1::timestamp, $1::timestamp + (CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END) * interval '1 hour' FROM generate_series(1, 20000) AS g`,
    [at.toISOString()],
  )
  await client.query(
    `INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt") VALUES ('runs alice', 'live', $1, $1::timestamp + interval '1 minute'), ('runs alice', 'gone', $1, $1::timestamp - interval '1 minute')`,
    [at.toISOString()],
  )

  const plan = await explain('take', take)
  const touching = plan.filter((node) => node['Relation Name'] === 'A2ALimitEntry' && node['Node Type'] !== 'ModifyTable')
  expect(touching.length).toBeGreaterThan(0)
  for (const node of touching) {
    expect(node['Node Type']).not.toBe('Seq Scan')
    // Only the batch's two keys' entries are read: alice's two, and none of bob's.
    expect(node['Actual Rows'] * node['Actual Loops']).toBeLessThanOrEqual(2)
  }
  // Alice's expired entry is deleted by its row address; the three requests go in.
  const deleted = plan.find((node) => node['Node Type'] === 'Tid Scan')
  expect(deleted && deleted['Actual Rows'] * deleted['Actual Loops']).toBe(1)
  expect(plan.find((node) => node['Node Type'] === 'ModifyTable' && node['Operation'] === 'Insert')?.['Actual Rows']).toBe(3)
})

/** Rows a plan node read over all its loops: those it kept and those its filter dropped. */
const rowsRead = (node: Record<string, any>): number => (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']

it('counts each key of a batch of limit takes once, however many of its requests the batch holds', async () => {
  await client.query('TRUNCATE "A2ALimitEntry"')
  const at = new Date(T0)
  await client.query(
    `INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt")
    SELECT k, 'live' || g, $1::timestamp, $1::timestamp + interval '1 hour' FROM unnest(ARRAY['runs carol', 'runs dave']) AS k, generate_series(1, 16) AS g`,
    [at.toISOString()],
  )
  const requests = Array.from({ length: 32 }, (_, i) => ({ key: i % 2 ? 'runs carol' : 'runs dave', id: `new${i}`, limit: 64, ttlMs: 30_000 }))
  const take = takeStatement(requests, at)
  await client.query(`PREPARE take32 AS ${take.text}`)

  const plan = await explain('take32', take)
  // The 32 live entries are read for the counts and for the requests' own entries, once each:
  // a count per request read all of them per request (32 × 32, three times).
  const live = plan.filter((node) => node['Node Type'] === 'CTE Scan' && node['CTE Name'] === 'live')
  expect(live.reduce((rows, node) => rows + rowsRead(node), 0)).toBeLessThanOrEqual(2 * 32)
  expect(plan.find((node) => node['Node Type'] === 'ModifyTable' && node['Operation'] === 'Insert')?.['Actual Rows']).toBe(32)
})

it("finds a key's entries past the dead rows of earlier takes without visiting them again", async () => {
  await client.query('TRUNCATE "A2ALimitEntry"')
  const at = new Date(T0)
  // A busy owner's takes and releases, and no vacuum yet: 5,000 dead rows under one key.
  await client.query(
    `INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt")
    SELECT 'runs erin', 'done' || g, $1::timestamp, $1::timestamp + interval '1 hour' FROM generate_series(1, 5000) AS g`,
    [at.toISOString()],
  )
  await client.query(`DELETE FROM "A2ALimitEntry" WHERE "key" = 'runs erin'`)
  const take = takeStatement([{ key: 'runs erin', id: 'next', limit: 16, ttlMs: 30_000 }], at)
  await client.query(`PREPARE take_after AS ${take.text}`)
  const heapBlocks = async () => {
    await client.query('BEGIN')
    try {
      await client.query(INDEX_PROBES_ONLY.text)
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE take_after(${take.values.map(literal).join(', ')})`)
      const probe = [...nodes(rows[0]['QUERY PLAN'][0].Plan)].find((node) => node['Relation Name'] === 'A2ALimitEntry' && node['Node Type'] !== 'ModifyTable')!
      expect(probe['Node Type']).toBe('Index Scan')
      return probe['Shared Hit Blocks'] + probe['Shared Read Blocks']
    } finally {
      await client.query('ROLLBACK')
    }
  }
  // A probe marks the dead rows' index entries as such once no snapshot can see the rows (a
  // transaction of the server's, such as an autovacuum ANALYZE, may hold them a while); later ones skip them.
  await heapBlocks()
  await expect.poll(heapBlocks, { timeout: 10_000, interval: 200 }).toBeLessThan(10)
})

it('keeps a batch of limit releases primary-key probes, on a plan made while the table was empty', async () => {
  await client.query('TRUNCATE "A2ALimitEntry"')
  const release = releaseStatement([
    { key: 'turns owner-1', id: 'e1' },
    { key: 'turns owner-2', id: 'e2' },
    { key: 'turns owner-3', id: 'e3' },
    { key: 'turns owner-4', id: 'e4' },
  ])
  await client.query(`PREPARE release AS ${release.text}`)
  await explain('release', release)
  await client.query(`INSERT INTO "A2ALimitEntry" ("key", "id", "createdAt", "expiresAt")
    SELECT 'turns owner-' || (g % 500), 'e' || g, now(), now() + interval '1 hour' FROM generate_series(1, 20000) AS g`)

  const plan = await explain('release', release)
  for (const node of plan) expect(node['Node Type']).not.toBe('Seq Scan')
  const probes = plan.filter((node) => node['Index Name'] === 'A2ALimitEntry_pkey')
  expect(probes.length).toBeGreaterThan(0)
  for (const node of probes) expect(node['Index Cond']).toContain('id')
  // One probe per entry, each finding it (EXPLAIN gives rows per loop).
  expect(probes.reduce((rows, node) => rows + node['Actual Rows'] * node['Actual Loops'], 0)).toBe(4)
})

it('keeps the batched task read primary-key probes, on a plan made while the table was empty', async () => {
  await client.query('TRUNCATE "A2ATask"')
  const read = selectTasks(['read-1', 'read-2', 'read-3'])
  await client.query(`PREPARE read AS ${read.text}`)
  await explain('read', read)
  await client.query(`INSERT INTO "A2ATask" ("id", "contextId", "owner", "skill", "version", "task", "messageIds", "createdAt", "updatedAt", "statusState", "statusTime")
    SELECT 'read-' || g, 'ctx-' || g, 'reader', 'echo', 1, '{}', '[]', now(), now(), 'TASK_STATE_WORKING', now() FROM generate_series(1, 20000) AS g`)

  const plan = await explain('read', read)
  for (const node of plan) expect(node['Node Type']).not.toBe('Seq Scan')
  const probe = plan.find((node) => node['Index Name'] === 'A2ATask_pkey')
  expect(probe?.['Index Cond']).toContain('id')
  expect(plan[0]?.['Actual Rows']).toBe(3)
})
