/**
 * `a2a migrate` against the real MariaDB (or MySQL) at A2A_TEST_MYSQL_URL, each test on its own
 * database: the migrations it writes, what they do to the tables, and Prisma's history table.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mysqlConnection, mysqlServer as server } from '../../../../test/mysql-server.js'
import { runA2a } from '../cli/index.js'
import { captureIo } from '../cli/test-io.js'
import { checksum } from './history.js'

const HEADER = `datasource db {
  provider = "mysql"
  url      = env("DATABASE_URL")
}

generator client {
  provider        = "prisma-client"
  output          = "../src/generated/prisma"
  previewFeatures = ["fullTextIndex"]
}
`

const INITIAL = `${HEADER}
enum Status {
  DRAFT @map("draft")
  SENT
}

model Customer {
  id       Int       @id @default(autoincrement())
  email    String    @unique @db.VarChar(191)
  invoices Invoice[]
}

model Invoice {
  id         String   @id @default(uuid())
  title      String   @default("untitled")
  status     Status   @default(DRAFT)
  total      Decimal  @default(0) @db.Decimal(10, 2)
  paid       Boolean  @default(false)
  body       String   @db.LongText
  location   Unsupported("point")?
  createdAt  DateTime @default(now())
  customer   Customer @relation(fields: [customerId], references: [id], onDelete: Cascade)
  customerId Int

  @@fulltext([body])
  @@index([title(length: 20), status])
}
`

let app: string
let database: string

async function query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]> {
  const db = await mysqlConnection(server, { database, bigIntAsNumber: true })
  try {
    return (await db.query(sql, params)) as Record<string, unknown>[]
  } finally {
    await db.end()
  }
}

async function migrate(...args: string[]) {
  const { io, stdout, stderr } = captureIo()
  const code = await runA2a(['migrate', ...args, '--app', app], io)
  return { code, stdout: stdout(), stderr: stderr() }
}

async function writeSchema(text: string): Promise<void> {
  await writeFile(join(app, 'prisma', 'schema.prisma'), text)
}

async function migrationFolders(): Promise<string[]> {
  return (await readdir(join(app, 'prisma', 'migrations'), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
}

async function columns(table: string): Promise<string[]> {
  const rows = await query('SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION', [database, table])
  return rows.map((row) => String(row.c))
}

beforeEach(async () => {
  app = await mkdtemp(join(tmpdir(), 'a2a-migrate-'))
  await mkdir(join(app, 'prisma'))
  database = `a2a_migrate_${randomBytes(6).toString('hex')}`
  const url = new URL(server.href)
  url.pathname = `/${database}`
  process.env.DATABASE_URL = url.href
})

afterEach(async () => {
  delete process.env.DATABASE_URL
  const admin = await mysqlConnection()
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
  const shadows = (await admin.query('SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [`${database}_shadow_%`])) as { s: string }[]
  await admin.end()
  // A shadow database left behind would be a leak in the command, not in this test.
  expect(shadows).toEqual([])
  await rm(app, { recursive: true, force: true })
})

describe('a2a migrate dev', () => {
  it('creates the missing database and writes the first migration in Prisma’s format, applied and recorded', async () => {
    await writeSchema(INITIAL)
    const result = await migrate('dev', '--name', 'init')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Created database ${database}`)
    const [folder] = await migrationFolders()
    expect(folder).toMatch(/^\d{14}_init$/)
    const sql = await readFile(join(app, 'prisma', 'migrations', folder!, 'migration.sql'), 'utf8')
    expect(sql).toContain('CREATE TABLE `Invoice`')
    expect(sql).toContain('FULLTEXT INDEX `Invoice_body_idx`(`body`)')
    expect(sql).toContain('`location` POINT NULL')
    expect(sql).toContain('INDEX `Invoice_title_status_idx`(`title`(20), `status`)')
    expect(sql).toContain(
      'ALTER TABLE `Invoice` ADD CONSTRAINT `Invoice_customerId_fkey` FOREIGN KEY (`customerId`) REFERENCES `Customer`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;',
    )
    expect(await readFile(join(app, 'prisma', 'migrations', 'migration_lock.toml'), 'utf8')).toContain('provider = "mysql"')

    const [history] = await query('SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations')
    expect(history).toMatchObject({ migration_name: folder, checksum: checksum(sql), applied_steps_count: 1 })
    expect(history!.finished_at).not.toBeNull()

    // The tables work as Prisma's client expects: defaults filled in, the key enforced, cascades.
    await query("INSERT INTO Customer (email) VALUES ('a@example.com')")
    await query("INSERT INTO Invoice (id, body, customerId) VALUES ('i1', 'text', 1)")
    expect(await query('SELECT title, status, total, paid FROM Invoice')).toEqual([{ title: 'untitled', status: 'draft', total: '0.00', paid: 0 }])
    await expect(query("INSERT INTO Invoice (id, body, customerId) VALUES ('i2', 'text', 99)")).rejects.toThrow(/foreign key constraint fails/)
    await query('DELETE FROM Customer')
    expect(await query('SELECT id FROM Invoice')).toEqual([])
  })

  it('says the database is already in sync on a second run, and writes nothing', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    const second = await migrate('dev')
    expect(second.stderr).toBe('')
    expect(second.code).toBe(0)
    expect(second.stdout).toContain('Already in sync')
    expect(await migrationFolders()).toHaveLength(1)
  })

  it('adds a column and an index in a second migration, keeping the rows', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    await query("INSERT INTO Customer (email) VALUES ('a@example.com')")
    await writeSchema(
      INITIAL.replace('  customerId Int\n', '  customerId Int\n  notes      String?  @db.Text\n  dueOn      DateTime @default(now()) @db.Date\n\n  @@index([paid])\n'),
    )
    const result = await migrate('dev', '--name', 'add_notes')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const folders = await migrationFolders()
    expect(folders[1]).toMatch(/_add_notes$/)
    const sql = await readFile(join(app, 'prisma', 'migrations', folders[1]!, 'migration.sql'), 'utf8')
    expect(sql).toContain('ADD COLUMN `notes` TEXT NULL')
    expect(sql).toContain('CREATE INDEX `Invoice_paid_idx` ON `Invoice`(`paid`);')
    expect(sql).not.toContain('CREATE TABLE')
    expect(await columns('Invoice')).toContain('notes')
    const indexes = await query("SELECT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'Invoice' AND COLUMN_NAME = 'paid'", [
      database,
    ])
    expect(indexes).toEqual([{ name: 'Invoice_paid_idx' }])
    expect(await query('SELECT email FROM Customer')).toEqual([{ email: 'a@example.com' }])
    expect((await migrate('dev')).stdout).toContain('Already in sync')
  })

  it('refuses a renamed field (a drop and an add) on a table with rows until --accept-data-loss', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    await query("INSERT INTO Customer (email) VALUES ('a@example.com')")
    await query("INSERT INTO Invoice (id, title, body, customerId) VALUES ('i1', 'March', 'text', 1)")
    await writeSchema(
      INITIAL.replace('  title      String   @default("untitled")', '  heading    String   @default("untitled")').replace('title(length: 20)', 'heading(length: 20)'),
    )

    const refused = await migrate('dev', '--name', 'rename_title')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('drops column `Invoice`.`title` and the values in it (1 row)')
    expect(refused.stderr).toContain('--accept-data-loss')
    expect(await migrationFolders()).toHaveLength(1)
    expect(await columns('Invoice')).toContain('title')

    const accepted = await migrate('dev', '--name', 'rename_title', '--accept-data-loss')
    expect(accepted.stderr).toBe('')
    expect(accepted.code).toBe(0)
    expect(await migrationFolders()).toHaveLength(2)
    expect(await columns('Invoice')).toContain('heading')
    expect(await columns('Invoice')).not.toContain('title')
    expect(await query('SELECT heading FROM Invoice')).toEqual([{ heading: 'untitled' }])
  })

  it('round-trips the MySQL corpus schema (native types, unsigned keys, @@fulltext, index length:): in sync right after', async () => {
    await writeSchema(readFileSync(new URL('../../../../test/fixtures/schemas/helpdesk/schema.prisma', import.meta.url), 'utf8'))
    const first = await migrate('dev', '--name', 'init')
    expect(first.stderr).toBe('')
    const [folder] = await migrationFolders()
    const sql = await readFile(join(app, 'prisma', 'migrations', folder!, 'migration.sql'), 'utf8')
    expect(sql).toContain('`organizationId` INT UNSIGNED NOT NULL')
    expect(sql).toContain("`currency` CHAR(3) NOT NULL DEFAULT 'EUR'")
    expect(sql).toContain('FULLTEXT INDEX `Ticket_subject_description_idx`(`subject`, `description`)')
    expect(sql).toContain('INDEX `Ticket_portalUrl_idx`(`portalUrl`(100))')
    expect((await migrate('dev')).stdout).toContain('Already in sync')
  })

  it('changes a foreign key and drops a referenced model in an order the server accepts', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    await query("INSERT INTO Customer (email) VALUES ('a@example.com')")
    await query("INSERT INTO Invoice (id, body, customerId) VALUES ('i1', 'text', 1)")
    // Cascade becomes Restrict: the key is dropped and added again.
    await writeSchema(INITIAL.replace('onDelete: Cascade', 'onDelete: Restrict'))
    const restricted = await migrate('dev', '--name', 'restrict')
    expect(restricted.stderr).toBe('')
    await expect(query('DELETE FROM Customer')).rejects.toThrow(/foreign key constraint fails/)
    // Customer goes, with the relation: Invoice's key and index go first, then the table.
    const withoutCustomer = INITIAL.replace(/model Customer \{[\s\S]*?\n\}\n/, '').replace(
      '  customer   Customer @relation(fields: [customerId], references: [id], onDelete: Cascade)\n',
      '',
    )
    expect((await migrate('dev')).stdout).toContain('Already in sync')
    await writeSchema(withoutCustomer)
    const dropped = await migrate('dev', '--name', 'drop_customer')
    expect(dropped.code).toBe(1)
    expect(dropped.stderr).toContain('drops table `Customer` and every row in it (1 row)')
    const accepted = await migrate('dev', '--name', 'drop_customer', '--accept-data-loss')
    expect(accepted.stderr).toBe('')
    expect(await query("SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> '_prisma_migrations' ORDER BY TABLE_NAME")).toEqual(
      [{ t: 'Invoice' }],
    )
    expect(await query('SELECT customerId FROM Invoice')).toEqual([{ customerId: 1 }])
    expect((await migrate('dev')).stdout).toContain('Already in sync')
  })

  it('names the subcommands when none is given', async () => {
    const result = await migrate()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Name what to do, e.g. `a2a migrate dev`.')
    expect(result.stderr).toContain('a2a migrate --help')
  })

  it('writes without applying under --create-only; the next run applies it', async () => {
    await writeSchema(INITIAL)
    const created = await migrate('dev', '--name', 'init', '--create-only')
    expect(created.code).toBe(0)
    expect(created.stdout).toContain('(not applied)')
    expect(await query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Invoice'")).toEqual([])
    const applied = await migrate('dev')
    expect(applied.stdout).toMatch(/Applied \d{14}_init/)
    expect(applied.stdout).toContain('Already in sync')
    expect(await columns('Invoice')).toContain('body')
  })

  it('writes an empty migration for hand SQL under --create-only when the schema is in sync, as Prisma does', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    expect((await migrate('dev', '--name', 'hand_sql', '--create-only')).code).toBe(0)
    const [, hand] = await migrationFolders()
    const file = join(app, 'prisma', 'migrations', hand!, 'migration.sql')
    expect(await readFile(file, 'utf8')).toBe('-- This is an empty migration.\n')
    await writeFile(file, 'CREATE VIEW `OpenInvoice` AS SELECT id FROM `Invoice` WHERE paid = 0;\n')
    const applied = await migrate('dev')
    expect(applied.stderr).toBe('')
    expect(applied.stdout).toMatch(/Applied \d{14}_hand_sql[\s\S]*Already in sync/)
    expect(await query('SELECT * FROM OpenInvoice')).toEqual([])
  })

  it('stops on drift: a table changed outside the migrations', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    await query('ALTER TABLE Customer ADD COLUMN nickname VARCHAR(20) NULL')
    const result = await migrate('dev')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('has drifted from')
    expect(result.stderr).toContain('ALTER TABLE `Customer` ADD COLUMN `nickname` VARCHAR(20) NULL;')
    expect(result.stderr).toContain('a2a migrate reset --force')
    const reset = await migrate('reset', '--force')
    expect(reset.code).toBe(0)
    expect(await columns('Customer')).toEqual(['id', 'email'])
    expect((await migrate('dev')).stdout).toContain('Already in sync')
  })

  it("leaves the runtime's job and push outbox tables out: no drift, no migration drops them", async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    // As MysqlJobQueue and MysqlPushOutbox create them on start (@a2a-agent/runtime/mysql-jobs, mysql-push-outbox).
    await query('CREATE TABLE a2a_jobs (id CHAR(64) NOT NULL PRIMARY KEY)')
    await query('CREATE TABLE a2a_push_outbox (id BIGINT NOT NULL PRIMARY KEY)')
    const again = await migrate('dev')
    expect(again.stderr).toBe('')
    expect(again.stdout).toContain('Already in sync')
    expect(await columns('a2a_jobs')).toEqual(['id'])
    expect(await columns('a2a_push_outbox')).toEqual(['id'])
  })

  it('stops when an applied migration was edited', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    const [folder] = await migrationFolders()
    const file = join(app, 'prisma', 'migrations', folder!, 'migration.sql')
    await writeFile(file, `${await readFile(file, 'utf8')}\n-- edited\n`)
    const result = await migrate('deploy')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`migration ${folder} was edited after it was applied`)
  })
  it('orders the folders of two --create-only runs in one second: the later takes the next second', async () => {
    await writeSchema(INITIAL)
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T12:00:00.100Z') })
    try {
      expect((await migrate('dev', '--name', 'init', '--create-only')).code).toBe(0)
      expect((await migrate('dev', '--name', 'hand_sql', '--create-only')).code).toBe(0)
    } finally {
      vi.useRealTimers()
    }
    expect(await migrationFolders()).toEqual(['20260101120000_init', '20260101120001_hand_sql'])
  })

  it('refuses migrations whose migration_lock.toml names another provider, saying to move them away', async () => {
    await writeSchema(INITIAL)
    await mkdir(join(app, 'prisma', 'migrations'))
    await writeFile(join(app, 'prisma', 'migrations', 'migration_lock.toml'), 'provider = "postgresql"\n')
    const result = await migrate('dev')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('says these migrations are for postgresql, not mysql')
    expect(result.stderr).toContain('move them away (or delete the folder)')
    expect(await migrationFolders()).toEqual([])
  })
})

describe('a2a migrate deploy', () => {
  it('creates the database and applies the pending migrations, once', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init', '--create-only')).code).toBe(0)
    const admin = await mysqlConnection()
    await admin.query(`DROP DATABASE \`${database}\``)
    await admin.end()
    const first = await migrate('deploy')
    expect(first.stderr).toBe('')
    expect(first.stdout).toContain(`Created database ${database}`)
    expect(first.stdout).toMatch(/Applied 1 migration:\n {2}\d{14}_init/)
    expect(await columns('Customer')).toEqual(['id', 'email'])
    expect((await migrate('deploy')).stdout).toContain('No pending migrations to apply')
  })

  it('stops at a failing script, records it unfinished, and refuses to go on until it is dealt with', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init', '--create-only')).code).toBe(0)
    const broken = join(app, 'prisma', 'migrations', '29990101000000_broken')
    await mkdir(broken)
    await writeFile(join(broken, 'migration.sql'), 'ALTER TABLE `NoSuchTable` ADD COLUMN `x` INT;\n')

    const dev = await migrate('dev')
    expect(dev.code).toBe(1)
    expect(dev.stderr).toMatch(
      /migration 29990101000000_broken fails on an empty database \(the shadow database, where the history is replayed\): .*NoSuchTable.*\. Fix its migration\.sql/,
    )

    const first = await migrate('deploy')
    expect(first.code).toBe(1)
    expect(first.stderr).toContain(`migration 29990101000000_broken failed on ${database}:`)
    expect(await query("SELECT migration_name, finished_at FROM _prisma_migrations WHERE migration_name = '29990101000000_broken'")).toEqual([
      { migration_name: '29990101000000_broken', finished_at: null },
    ])
    const second = await migrate('deploy')
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('migration 29990101000000_broken failed earlier and is marked unfinished in _prisma_migrations')
  })

  it('names what is wrong with a non-MySQL DATABASE_URL', async () => {
    process.env.DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/app'
    const result = await migrate('deploy')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('DATABASE_URL names a postgresql database; a2a migrate is for MySQL/MariaDB')
  })
  it('refuses when the database has migrations the folder lacks, saying to restore them', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    const [folder] = await migrationFolders()
    await rm(join(app, 'prisma', 'migrations', folder!), { recursive: true })
    const result = await migrate('deploy')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(new RegExp(`the database has migrations that \\S*migrations lacks: ${folder}\\.`))
    expect(result.stderr).toContain('Restore them from version control')
  })
})

describe('a2a migrate reset', () => {
  it('refuses without --force and leaves the database as it was', async () => {
    await writeSchema(INITIAL)
    expect((await migrate('dev', '--name', 'init')).code).toBe(0)
    await query("INSERT INTO Customer (email) VALUES ('a@example.com')")
    const result = await migrate('reset')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`a2a migrate reset drops ${database}`)
    expect(result.stderr).toContain('pass --force to do it')
    expect(await query('SELECT email FROM Customer')).toEqual([{ email: 'a@example.com' }])
  })
})
