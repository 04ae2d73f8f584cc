// The generator on schemas it has not seen: each schema of test/fixtures/schemas (multi-tenant SaaS
// apps as teams write them) goes into a freshly scaffolded app with its entities.ts, then through
// what a user runs: generate, prisma generate, the first migration, the app's type-check and the
// generated tests. Apps sit inside this repository, so they share its node_modules (no install);
// PostgreSQL apps' tests each make and drop their own database on the one server. Between them the
// schemas hold Int, cuid and uuid ids, owner keys not named id (uid, staffNo) on tables without
// e-mail, snake_case @map/@@map, compound ids, a compound unique with a nullable member, required
// keys into entities without create and into models that are no entity, self-relations, enums
// with @map, Json, BigInt, Decimal and Bytes, an implicit many-to-many and the citext extension;
// a MySQL schema with native types, @@fulltext and an index prefix (its apps test on MariaDB).
// The scaffolded seed is left out: the tests make their own rows (test/owners.gen.ts).
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { captureIo } from '../packages/create-a2a-agent/src/cli/test-io.js'
import { checkApp, generateAndDiffMigration, scaffoldRoot } from '../packages/create-a2a-agent/src/scaffold/e2e-support.js'
import { runCreate } from '../packages/create-a2a-agent/src/scaffold/index.js'
import { generateEntities } from '../packages/create-a2a-agent/src/scaffold/steps.js'
import type { Database } from '../packages/create-a2a-agent/src/scaffold/templates.js'

const corpus = fileURLToPath(new URL('./fixtures/schemas/', import.meta.url))
const root = scaffoldRoot()
const pgServer = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'
const mysqlServer = process.env.A2A_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql'

interface CorpusApp {
  name: string
  /** The fixture folder, when the app runs a schema another entry runs too (on another database). */
  schema?: string
  database: Database
  /** Lines the generator must print: the entities it narrowed, and why. */
  notes: string[]
}

const apps: CorpusApp[] = [
  { name: 'tracker', database: 'sqlite', notes: ['me: no create operation: each User row is its owner (ownerField "id" is the id)'] },
  { name: 'billing', database: 'postgresql', notes: [] },
  { name: 'crm', database: 'postgresql', notes: ['territories: no create operation: "centre" is a required Unsupported("point") column'] },
  { name: 'publishing', database: 'sqlite', notes: ['newsletters: no create operation: "siteId" is a required reference to Site'] },
  // Owner key `uid` on a table without e-mail, snake_case @map/@@map, enums with @map, citext.
  {
    name: 'polls',
    database: 'postgresql',
    notes: ['me: "passwordHash" is hidden: its name looks like a credential', 'me: no create operation: each Member row is its owner (ownerField "uid" is the id)'],
  },
  // A compound id, a compound unique with a nullable member, Json, BigInt, Decimal and Bytes.
  { name: 'wiki', database: 'postgresql', notes: [] },
  // A compound id on SQLite, and the same schema on PostgreSQL.
  { name: 'shop', database: 'sqlite', notes: ['account: "apiKey" is hidden: its name looks like a credential'] },
  { name: 'shop-postgresql', schema: 'shop', database: 'postgresql', notes: [] },
  // An Int owner key named staffNo, a self-relation, a required key into a model that is no entity.
  { name: 'clinic', database: 'postgresql', notes: ['me: "pinHash" is hidden: its name looks like a credential'] },
  // MySQL as written for MySQL: VarChar lengths, Char, Text/MediumText/LongText, TinyInt, unsigned
  // integers, Decimal, @@fulltext and an index on a column prefix (length:), unedited.
  { name: 'helpdesk', database: 'mysql', notes: [] },
]

/** The corpus schema and entities.ts in place of the scaffolded ones, its provider the app's database. */
function useCorpus(app: string, name: string, database: Database): void {
  const source = join(corpus, name)
  rmSync(join(app, 'prisma/schema.prisma'))
  if (readdirSync(source).includes('prisma')) cpSync(join(source, 'prisma'), join(app, 'prisma'), { recursive: true })
  else {
    const schema = readFileSync(join(source, 'schema.prisma'), 'utf8')
    writeFileSync(join(app, 'prisma/schema.prisma'), schema.replace(/provider(\s*)= "(sqlite|postgresql|mysql)"/, `provider$1= "${database}"`))
  }
  cpSync(join(source, 'entities.ts'), join(app, 'src/entities.ts'))
}

// Each app's check runs tsc and vitest side by side: a few apps at a time keep the machine's cores
// busy without every app's steps stretching past its timeout.
const PARALLEL_APPS = 3
let running = 0
const queued: (() => void)[] = []
async function inTurn(work: () => Promise<void>): Promise<void> {
  if (running < PARALLEL_APPS) running++
  else await new Promise<void>((start) => queued.push(start))
  try {
    await work()
  } finally {
    // The slot passes straight to the next app waiting, else frees up.
    const next = queued.shift()
    if (next) next()
    else running--
  }
}

describe.concurrent('the schema corpus', () => {
  const timeout = 480_000 * Math.ceil(apps.length / PARALLEL_APPS)
  it.each(apps)('$name ($database): generates, migrates, type-checks and passes its generated tests', { timeout }, ({ name, schema = name, database, notes }) => inTurn(async () => {
    const app = join(root, name)
    const created = captureIo()
    const flags = ['--empty', '--database', database, '--no-install', '--no-git']
    expect(await runCreate([app, ...flags], created.io)).toBe(0)
    useCorpus(app, schema, database)
    const stepEnv = { DATABASE_URL: database === 'sqlite' ? 'file:./dev.db' : database === 'mysql' ? mysqlServer : pgServer }

    const generated = captureIo()
    const started = performance.now()
    await generateEntities(app, generated.io)
    const seconds = (performance.now() - started) / 1000
    console.log(`${name}: a2a generate entities took ${seconds.toFixed(2)} s`)
    for (const note of notes) expect(generated.stdout()).toContain(note)
    // A second run skips planning (nothing changed) and still says what it left out.
    const again = captureIo()
    await generateEntities(app, again.io)
    expect(again.stdout()).toMatch(/^Nothing to do: /)
    for (const note of notes) expect(again.stdout()).toContain(note)

    await generateAndDiffMigration(app, database, stepEnv)
    // One module graph per worker (the app's Prisma client is imported once, not per test file);
    // starting an app takes longer than the app's own hook timeout on a machine this busy.
    const { tests } = await checkApp(app, stepEnv, ['--no-isolate', '--hookTimeout=120000'])
    const files = readdirSync(join(app, 'test/entities')).filter((file) => file.endsWith('.gen.test.ts'))
    expect(tests).toMatch(new RegExp(`Test Files +${files.length + 1} passed`))
    expect(readFileSync(join(app, 'src/a2a/entities.gen.ts'), 'utf8')).toContain('Tools(db)')
  }))
})
