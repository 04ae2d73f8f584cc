// The generator on schemas it has not seen: each schema of test/fixtures/schemas (multi-tenant SaaS
// apps as teams write them) goes into a freshly scaffolded app with its entities.ts, then through
// the commands the app's README documents, unedited: `npm run db:change` (generate, then the
// migration that creates the schema on the app's own database), `npm run db:seed` (the seed the
// generator wrote from the owner model), the app's type-check and the generated tests. Each step is
// printed as it starts, and a failure names it. Apps sit inside this repository, so they share its
// node_modules (no install); PostgreSQL apps each get their own database on the one server, and
// their tests make and drop theirs. Between them the schemas hold Int, cuid and uuid ids, owner
// keys not named id (uid, staffNo) on tables without e-mail, snake_case @map/@@map, compound ids, a
// compound unique with a nullable member, required keys into entities without create and into
// models that are no entity, self-relations, enums with @map, Json, BigInt, Decimal and Bytes, an
// implicit many-to-many and the citext extension; a MySQL schema with native types, @@fulltext and
// an index prefix (its app migrates and tests on MariaDB).
import { execFile } from 'node:child_process'
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { captureIo } from '../packages/create-a2a-agent/src/cli/test-io.js'
import { checkApp, scaffoldRoot, userEnv } from '../packages/create-a2a-agent/src/scaffold/e2e-support.js'
import { runCreate } from '../packages/create-a2a-agent/src/scaffold/index.js'
import { generateEntities } from '../packages/create-a2a-agent/src/scaffold/steps.js'
import type { Database } from '../packages/create-a2a-agent/src/scaffold/templates.js'
import { mysqlConnection, mysqlServer } from './mysql-server.js'

const corpus = fileURLToPath(new URL('./fixtures/schemas/', import.meta.url))
const root = scaffoldRoot()
const pgServer = process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres'

interface CorpusApp {
  name: string
  /** The fixture folder, when the app runs a schema another entry runs too (on another database). */
  schema?: string
  database: Database
  /** Lines the generator must print: the entities it narrowed, and why. */
  notes: string[]
  /** The generated tests' count line when some skip (rows they cannot make); else none may skip. */
  skipped?: RegExp
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
  // Keys onto unique columns that are not ids, a key of two columns into a compound id, and
  // parents no generic code can make, whose create tests skip, naming why.
  {
    name: 'warehouse',
    database: 'postgresql',
    notes: [
      'shipments: the generated create tests need a Dock row for "dockId" and cannot make one ("area" is a required Unsupported("polygon") column of Dock, which no generic code can fill): they are skipped, saying so',
      'assignments: the generated create tests need a Crew row for "crewId" and cannot make one (its required relations run in a cycle (Crew → Worker → Crew)): they are skipped, saying so',
    ],
    skipped: /Tests +\d+ passed \| 16 skipped/,
  },
  // Keys of two columns into a compound id, in tenants: an item's bin must be one of the caller's
  // own (a cross-owner one is refused), a part of a key is refused naming what is missing, and a
  // key into a shared catalogue is set only as writableReferences opens it, its refusal naming
  // the relation and its fields. On SQLite (no constraint names in its errors) and on MariaDB.
  {
    name: 'stockroom',
    database: 'sqlite',
    notes: [
      `shipments: "returnService" (returnCarrier, returnCode) is left out of the tools' arguments: it references CarrierService, which is not an entity; add returnCarrier and returnCode to writableReferences to let agents name any CarrierService row`,
    ],
  },
  {
    name: 'stockroom-mysql',
    schema: 'stockroom',
    database: 'mysql',
    notes: [
      `shipments: "returnService" (returnCarrier, returnCode) is left out of the tools' arguments: it references CarrierService, which is not an entity; add returnCarrier and returnCode to writableReferences to let agents name any CarrierService row`,
    ],
  },
]

// The apps' own databases (`npm run db:change` migrates each app's), dropped at the end.
const databases: { database: Database; name: string }[] = []
afterAll(async () => {
  for (const { database, name } of databases) {
    if (database === 'mysql') {
      const admin = await mysqlConnection()
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await admin.end()
    } else {
      const admin = new pg.Client({ connectionString: pgServer })
      await admin.connect()
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin.end()
    }
  }
})

/**
 * The URL of a database of its own for app `name`: a fresh PostgreSQL one, made as the scaffolder
 * makes it; on MySQL a name only, since `a2a migrate dev` creates the database when missing.
 */
async function appDatabase(name: string, database: Database): Promise<string> {
  const own = `corpus_${name.replaceAll('-', '_')}_${process.pid}`
  databases.push({ database, name: own })
  const url = new URL(database === 'mysql' ? mysqlServer : pgServer)
  url.pathname = `/${own}`
  if (database === 'mysql') return url.href
  const admin = new pg.Client({ connectionString: pgServer })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS "${own}" WITH (FORCE)`)
  await admin.query(`CREATE DATABASE "${own}"`)
  await admin.end()
  return url.href
}

/**
 * `command args` in `app` as a person's shell runs it, printed first; resolves to its output, and
 * fails naming the app and the step with the output when it exits non-zero.
 */
async function step(name: string, app: string, env: Record<string, string>, command: string, ...args: string[]): Promise<{ code: number; output: string }> {
  console.log(`${name}: ${[command, ...args].join(' ')}`)
  const done = await promisify(execFile)(command, args, { cwd: app, env: userEnv(env), maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  )
  return done
}

/** `step` that must succeed. */
async function must(name: string, app: string, env: Record<string, string>, command: string, ...args: string[]): Promise<string> {
  const { code, output } = await step(name, app, env, command, ...args)
  expect(code, `${name}: \`${[command, ...args].join(' ')}\` failed:\n${output}`).toBe(0)
  return output
}

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
  it.each(apps)('$name ($database): generates, migrates, type-checks and passes its generated tests', { timeout }, ({ name, schema = name, database, notes, skipped }) =>
    inTurn(async () => {
      const app = join(root, name)
      const created = captureIo()
      const flags = ['--empty', '--database', database, '--no-install', '--no-git']
      console.log(`${name}: create-a2a-agent ${name} ${flags.join(' ')}`)
      expect(await runCreate([app, ...flags], created.io)).toBe(0)
      useCorpus(app, schema, database)
      const stepEnv = { DATABASE_URL: database === 'sqlite' ? 'file:./dev.db' : await appDatabase(name, database) }

      // The README's schema change: the entity code, then the migration (the app's first) applied.
      const change = await must(name, app, stepEnv, 'npm', 'run', 'db:change', '--', '--name', 'corpus')
      for (const note of notes) expect(change).toContain(note)
      const migrations = readdirSync(join(app, 'prisma/migrations')).filter((entry) => entry !== 'migration_lock.toml')
      expect(migrations).toEqual([expect.stringMatching(/^\d{14}_corpus$/)])
      // A second run skips planning (nothing changed) and still says what it left out.
      const again = captureIo()
      await generateEntities(app, again.io)
      expect(again.stdout()).toMatch(/^Nothing to do: /)
      for (const note of notes) expect(again.stdout()).toContain(note)

      // The seed the generator wrote from the owner model. One whose ids are numbers or uuids refuses
      // A2A_DEV_KEYS' names (alice, bob) and says what to put in .env: done as it says, then again.
      let seeded = await step(name, app, stepEnv, 'npm', 'run', 'db:seed')
      const misfit = /In \.env, name each owner by (a number|a uuid)/.exec(seeded.output)
      if (seeded.code !== 0 && misfit) {
        const ids = misfit[1] === 'a number' ? ['1', '2'] : ['00000000-0000-4000-8000-0000000a11ce', '00000000-0000-4000-8000-000000000b0b']
        console.log(`${name}: A2A_DEV_KEYS in .env renamed to ${misfit[1]} per owner, as the seed asked`)
        const env = readFileSync(join(app, '.env'), 'utf8')
        writeFileSync(
          join(app, '.env'),
          env.replace(
            /^A2A_DEV_KEYS=(.*)$/m,
            (_line, keys: string) =>
              `A2A_DEV_KEYS=${keys
                .split(',')
                .map((pair, index) => `${ids[index]}:${pair.split(':')[1]}`)
                .join(',')}`,
          ),
        )
        seeded = await step(name, app, stepEnv, 'npm', 'run', 'db:seed')
      }
      expect(seeded.code, `${name}: \`npm run db:seed\` failed:\n${seeded.output}`).toBe(0)
      expect(seeded.output).toMatch(/Development users in the database: |need no rows/)

      // One module graph per worker (the app's Prisma client is imported once, not per test file);
      // starting an app takes longer than the app's own hook timeout on a machine this busy.
      console.log(`${name}: tsc and vitest run (npm test)`)
      const { tests } = await checkApp(app, stepEnv, ['--no-isolate', '--hookTimeout=120000'])
      const files = readdirSync(join(app, 'test/entities')).filter((file) => file.endsWith('.gen.test.ts'))
      expect(tests).toMatch(new RegExp(`Test Files +${files.length + 1} passed`))
      if (skipped) expect(tests).toMatch(skipped)
      else expect(tests).not.toMatch(/skipped/)
      expect(readFileSync(join(app, 'src/a2a/entities.gen.ts'), 'utf8')).toContain('Tools(db)')
    }),
  )
})
