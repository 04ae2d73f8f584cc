import { describe, expect, it } from 'vitest'
import { dialectNamed, MYSQL, POSTGRES, SQLITE } from './dialect.js'
import { claimMessageId, upsertPushConfig } from './statements.js'
import { sql } from './sql.js'

const config = { taskId: 't1', id: 'c1', owner: 'alice', url: 'http://127.0.0.1/hook', createdAt: 0 }

describe('MYSQL', () => {
  it('quotes identifiers with backticks and keeps every value bound', () => {
    const statement = MYSQL.render(sql`SELECT * FROM "A2ATask" WHERE "id" = ${'t"1'}`)
    expect(statement.sql).toBe('SELECT * FROM `A2ATask` WHERE `id` = ?')
    expect(statement.values).toEqual(['t"1'])
  })

  it('skips a taken key with INSERT IGNORE, and a table-less guarded SELECT names DUAL', () => {
    const claim = MYSQL.render(claimMessageId(MYSQL, 'alice', 't1', 'm1', true)).sql
    expect(claim).toMatch(
      /^INSERT IGNORE INTO `A2ATaskMessage` \(`owner`, `messageId`, `taskId`\) SELECT \?, \?, \? FROM DUAL WHERE NOT EXISTS \(SELECT 1 FROM `A2ATaskMessage` WHERE/,
    )
    expect(claim).not.toContain('CONFLICT')
  })

  it('upserts with ON DUPLICATE KEY UPDATE and VALUES(col)', () => {
    const upsert = MYSQL.render(upsertPushConfig(MYSQL, config, null)).sql
    expect(upsert).toContain('ON DUPLICATE KEY UPDATE `owner` = VALUES(`owner`), `url` = VALUES(`url`)')
    expect(upsert).not.toMatch(/CONFLICT|excluded/)
  })
})

describe.each([POSTGRES, SQLITE])('$name', (dialect) => {
  it('sends the statements as written, with ON CONFLICT for insert-ignore and upsert', () => {
    const claim = claimMessageId(dialect, 'alice', 't1', 'm1', false)
    expect(dialect.render(claim)).toBe(claim)
    expect(claim.sql).toBe('INSERT INTO "A2ATaskMessage" ("owner", "messageId", "taskId") VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
    expect(upsertPushConfig(dialect, config, null).sql).toMatch(/ON CONFLICT \("taskId", "id"\) DO UPDATE SET "owner" = excluded\."owner", .*"createdAt" = excluded\."createdAt"$/)
  })
})

it('names the providers it has no dialect for, and what it runs on', () => {
  expect(dialectNamed('mysql')).toBe(MYSQL)
  expect(() => dialectNamed('sqlserver')).toThrow('no SQL dialect for the Prisma provider "sqlserver": the task store runs on postgresql, sqlite or mysql')
})
