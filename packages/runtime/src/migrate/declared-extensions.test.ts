import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { expect, it } from 'vitest'
import { declaredExtensions } from './declared-extensions.js'

const run = promisify(execFile)
const prisma = createRequire(import.meta.url).resolve('prisma/build/index.js')
const prismaConfigModule = new URL('../prisma-config.ts', import.meta.url).href

const schema = `generator client {
  provider        = "prisma-client"
  output          = "../generated"
  engineType      = "client"
  previewFeatures = ["driverAdapters", "postgresqlExtensions"]
}

datasource db {
  provider   = "postgresql"
  url        = env("DATABASE_URL")
  extensions = [citext]
}

model Member {
  id    Int    @id @default(autoincrement())
  email String @unique @db.Citext
}
`

// Through the runtime's prisma config, as an app runs it: the real CLI on the wasm schema engine.
it('creates a declared extension in one migration, the next `migrate dev` in sync; drops it once undeclared, not a hand-made one', async () => {
  const server = new URL(process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres')
  const name = `a2a_citext_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: server.href })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}"`)
  const app = await mkdtemp(join(tmpdir(), 'a2a-citext-'))
  try {
    await mkdir(join(app, 'prisma'))
    await writeFile(join(app, 'prisma/schema.prisma'), schema)
    const url = new URL(server.href)
    url.pathname = `/${name}`
    await writeFile(join(app, 'prisma.config.ts'), `import { prismaConfig } from '${prismaConfigModule}'\n\nexport default prismaConfig({ defaultUrl: '${url.href}' })\n`)
    const migrateDev = (migration: string, ...flags: string[]) =>
      run(process.execPath, [prisma, 'migrate', 'dev', '--name', migration, '--skip-generate', '--skip-seed', ...flags], {
        cwd: app,
        env: { ...process.env, DATABASE_URL: url.href },
      })

    const first = await migrateDev('members')
    expect(first.stdout).toContain('members')
    const second = await migrateDev('again')
    expect(second.stdout).toContain('Already in sync')
    const migrations = (await readdir(join(app, 'prisma/migrations'))).filter((entry) => entry !== 'migration_lock.toml')
    expect(migrations, second.stdout).toHaveLength(1)
    expect(await readFile(join(app, 'prisma/migrations', migrations[0]!, 'migration.sql'), 'utf8')).toContain('CREATE EXTENSION IF NOT EXISTS "citext"')
    expect(await extensionsOf(url.href)).toContain('citext')

    // A draft for hand-written SQL starts empty rather than creating the extension again.
    await migrateDev('hand_sql', '--create-only')
    const migration = async (suffix: string) => {
      const [folder] = (await readdir(join(app, 'prisma/migrations'))).filter((entry) => entry.endsWith(suffix))
      expect(folder, `a migration named *${suffix}`).toBeDefined()
      return join(app, 'prisma/migrations', folder!, 'migration.sql')
    }
    expect(await readFile(await migration('_hand_sql'), 'utf8')).not.toContain('CREATE EXTENSION')
    // An extension of the user's own SQL: never dropped for missing from the declaration.
    await writeFile(await migration('_hand_sql'), 'CREATE EXTENSION IF NOT EXISTS pg_trgm;\n')
    // Applied the way `npm run db:change` does (the wasm engine cannot apply a draft and diff in one run).
    await run(process.execPath, [prisma, 'migrate', 'deploy'], { cwd: app, env: { ...process.env, DATABASE_URL: url.href } })

    // The column stops using citext; then the declaration goes, the only change of its migration.
    await writeFile(join(app, 'prisma/schema.prisma'), schema.replace(' @db.Citext', ''))
    await migrateDev('plain_email')
    await writeFile(join(app, 'prisma/schema.prisma'), schema.replace(' @db.Citext', '').replace('  extensions = [citext]\n', ''))
    const dropped = await migrateDev('drop_citext')
    expect(dropped.stdout).toContain('drop_citext')
    expect((await readFile(await migration('_drop_citext'), 'utf8')).trim()).toBe('-- DropExtension\nDROP EXTENSION IF EXISTS "citext";')
    expect((await extensionsOf(url.href)).sort()).toEqual(['pg_trgm', 'plpgsql'])
    const synced = await migrateDev('nothing')
    expect(synced.stdout).toContain('Already in sync')
    expect((await readdir(join(app, 'prisma/migrations'))).some((entry) => entry.endsWith('_nothing'))).toBe(false)
  } finally {
    await rm(app, { recursive: true, force: true })
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  }
}, 300_000)

async function extensionsOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const installed = await client.query<{ extname: string }>('SELECT extname FROM pg_extension').finally(() => client.end())
  return installed.rows.map((row) => row.extname)
}

it('reads the declared extensions by their database names, only under postgresqlExtensions on PostgreSQL', () => {
  const files = (content: string) => ({ files: [{ path: 'schema.prisma', content }] })
  const generator = 'generator client {\n  provider = "prisma-client"\n  previewFeatures = ["postgresqlExtensions"]\n}\n'
  const datasource = (body: string) => `datasource db {\n  provider = "postgresql"\n  url = env("DATABASE_URL")\n${body}}\n`
  expect(declaredExtensions(files(generator + datasource('  extensions = [citext, uuid_ossp(map: "uuid-ossp", schema: "extensions"), pg_trgm(version: "1.6")]\n')))).toEqual(
    new Set(['citext', 'uuid-ossp', 'pg_trgm']),
  )
  expect(declaredExtensions(files(generator + datasource('  // extensions = [citext]\n')))).toEqual(new Set())
  expect(declaredExtensions(files(generator.replace('"postgresqlExtensions"', '"driverAdapters"') + datasource('')))).toBeUndefined()
  expect(declaredExtensions(files(generator + datasource('').replace('postgresql', 'sqlite')))).toBeUndefined()
})
