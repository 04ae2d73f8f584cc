/**
 * The MySQL differ's pure parts. Against a live MariaDB it is tested through `a2a migrate`
 * (packages/create-a2a-agent/src/migrate/migrate.test.ts); here, what that server cannot show: how
 * MySQL 8 reports the same columns, and names past MySQL's 64-character limit.
 */
import { describe, expect, it } from 'vitest'
import { parseSchema } from '../read/prisma-schema.js'
import { diffSchemas } from './diff.js'
import { introspect, type Query } from './introspect.js'
import { normalizeType, targetSchema } from './schema.js'

const schema = (models: string) =>
  targetSchema(parseSchema([['schema.prisma', `datasource db {\n  provider = "mysql"\n  url      = env("DATABASE_URL")\n}\n\n${models}`]], 'schema.prisma'))

describe('normalizeType', () => {
  it('spells a type the way MariaDB and MySQL 8 both reduce to', () => {
    expect(['int(11)', 'int', 'INT(10) UNSIGNED', 'tinyint(1)', 'tinyint(4)', 'datetime(0)', 'DATETIME(3)', 'year(4)', "enum('Draft','SENT')"].map(normalizeType)).toEqual([
      'int',
      'int',
      'int unsigned',
      'tinyint(1)',
      'tinyint',
      'datetime',
      'datetime(3)',
      'year',
      "enum('Draft','SENT')",
    ])
  })
})

describe('introspect on MySQL 8', () => {
  // information_schema rows as MySQL 8.0 returns them for the model below: bare literal defaults,
  // CURRENT_TIMESTAMP(3) marked DEFAULT_GENERATED, no integer display widths.
  const rows: Record<string, Record<string, unknown>[]> = {
    VERSION: [{ v: '8.0.36' }],
    TABLES: [{ t: 'Invoice' }, { t: '_prisma_migrations' }],
    COLUMNS: [
      { t: 'Invoice', c: 'id', type: 'int', nullable: 'NO', def: null, extra: 'auto_increment' },
      { t: 'Invoice', c: 'currency', type: 'char(3)', nullable: 'NO', def: 'EUR', extra: '' },
      { t: 'Invoice', c: 'paid', type: 'tinyint(1)', nullable: 'NO', def: '0', extra: '' },
      { t: 'Invoice', c: 'total', type: 'decimal(10,2)', nullable: 'NO', def: '0.00', extra: '' },
      { t: 'Invoice', c: 'createdAt', type: 'datetime(3)', nullable: 'NO', def: 'CURRENT_TIMESTAMP(3)', extra: 'DEFAULT_GENERATED' },
      { t: 'Invoice', c: 'data', type: 'json', nullable: 'YES', def: null, extra: '' },
    ],
    STATISTICS: [
      { t: 'Invoice', name: 'PRIMARY', nonUnique: 0, c: 'id', length: null, kind: 'BTREE' },
      { t: 'Invoice', name: 'Invoice_currency_idx', nonUnique: 1, c: 'currency', length: 2, kind: 'BTREE' },
    ],
    KEY_COLUMN_USAGE: [],
  }
  const query: Query = async (sql) => rows[Object.keys(rows).find((name) => sql.includes(name))!]!

  it('reads the columns as the Prisma schema asks for them: nothing to change', async () => {
    const live = await introspect(query)
    const target = schema(`model Invoice {
  id        Int      @id @default(autoincrement())
  currency  String   @default("EUR") @db.Char(3)
  paid      Boolean  @default(false)
  total     Decimal  @default(0) @db.Decimal(10, 2)
  createdAt DateTime @default(now())
  data      Json?

  @@index([currency(length: 2)])
}`)
    expect(live.tables.map((table) => table.name)).toEqual(['Invoice'])
    expect(diffSchemas(live, target)).toEqual({ statements: [], warnings: [] })
  })
})

describe('diffSchemas', () => {
  it('cuts generated names to 64 characters, as Prisma does', () => {
    const long = 'a'.repeat(40)
    const { tables } = schema(`model ${long} {\n  id Int @id\n  ${long}Code String\n\n  @@unique([${long}Code])\n}`)
    const [index] = tables[0]!.indexes
    expect(index!.name).toHaveLength(64)
    expect(index!.name).toMatch(/^a{40}_a{19}_key$/)
  })

  it('drops a foreign key before the index and table it stands on, and adds keys after the tables they need', () => {
    const before = schema(
      `model Customer {\n  id Int @id\n  invoices Invoice[]\n}\n\nmodel Invoice {\n  id Int @id\n  customer Customer @relation(fields: [customerId], references: [id])\n  customerId Int\n}`,
    )
    const after = schema(
      `model Invoice {\n  id Int @id\n  customerId Int\n  owner Owner @relation(fields: [ownerId], references: [id])\n  ownerId Int\n}\n\nmodel Owner {\n  id Int @id\n  invoices Invoice[]\n}`,
    )
    const { statements, warnings } = diffSchemas(before, after)
    const kinds = statements.map((statement) => statement.split('\n')[0])
    expect(kinds).toEqual(['-- DropForeignKey', '-- DropIndex', '-- DropTable', '-- CreateTable', '-- AlterTable', '-- CreateIndex', '-- AddForeignKey'])
    expect(statements[0]).toBe('-- DropForeignKey\nALTER TABLE `Invoice` DROP FOREIGN KEY `Invoice_customerId_fkey`;')
    expect(statements.at(-1)).toBe(
      '-- AddForeignKey\nALTER TABLE `Invoice` ADD CONSTRAINT `Invoice_ownerId_fkey` FOREIGN KEY (`ownerId`) REFERENCES `Owner`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;',
    )
    expect(warnings.map((warning) => warning.message)).toEqual([
      'drops table `Customer` and every row in it',
      'adds required column `Invoice`.`ownerId` without a default, which existing rows cannot get; give it a @default or make it optional',
    ])
  })
})
