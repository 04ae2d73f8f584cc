import { describe, expect, it } from 'vitest'
import { toMysql } from './dialect.js'
import { claimMessageId, upsertPushConfig } from '../statements.js'
import { sql } from '../sql.js'

describe('toMysql', () => {
  it('quotes identifiers with backticks and keeps every value bound', () => {
    const statement = toMysql(sql`SELECT * FROM "A2ATask" WHERE "id" = ${'t"1'}`)
    expect(statement.sql).toBe('SELECT * FROM `A2ATask` WHERE `id` = ?')
    expect(statement.values).toEqual(['t"1'])
  })

  it("writes ON CONFLICT DO NOTHING as INSERT IGNORE, and a table-less guarded SELECT FROM DUAL", () => {
    const claim = toMysql(claimMessageId('alice', 't1', 'm1', true)).sql
    expect(claim).toMatch(/^INSERT IGNORE INTO `A2ATaskMessage` \(`owner`, `messageId`, `taskId`\) SELECT \?, \?, \? FROM DUAL WHERE NOT EXISTS \(SELECT 1 FROM `A2ATaskMessage` WHERE/)
    expect(claim).not.toContain('CONFLICT')
  })

  it('writes an upsert as ON DUPLICATE KEY UPDATE with VALUES(col) for excluded.col', () => {
    const upsert = toMysql(upsertPushConfig({ taskId: 't1', id: 'c1', owner: 'alice', url: 'http://127.0.0.1/hook', createdAt: 0 }, null)).sql
    expect(upsert).toContain('ON DUPLICATE KEY UPDATE `owner` = VALUES(`owner`), `url` = VALUES(`url`)')
    expect(upsert).not.toMatch(/CONFLICT|excluded/)
  })
})
