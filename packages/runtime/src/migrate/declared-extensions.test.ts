import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { expect, it } from 'vitest'

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
it('creates a declared extension in one migration; the next `migrate dev` is already in sync', async () => {
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
      run(process.execPath, [prisma, 'migrate', 'dev', '--name', migration, '--skip-generate', '--skip-seed', ...flags], { cwd: app, env: { ...process.env, DATABASE_URL: url.href } })

    const first = await migrateDev('members')
    expect(first.stdout).toContain('members')
    const second = await migrateDev('again')
    expect(second.stdout).toContain('Already in sync')
    const migrations = (await readdir(join(app, 'prisma/migrations'))).filter((entry) => entry !== 'migration_lock.toml')
    expect(migrations, second.stdout).toHaveLength(1)
    expect(await readFile(join(app, 'prisma/migrations', migrations[0]!, 'migration.sql'), 'utf8')).toContain('CREATE EXTENSION IF NOT EXISTS "citext"')
    const appDatabase = new pg.Client({ connectionString: url.href })
    await appDatabase.connect()
    const installed = await appDatabase.query<{ extname: string }>('SELECT extname FROM pg_extension').finally(() => appDatabase.end())
    expect(installed.rows.map((row) => row.extname)).toContain('citext')

    // A draft for hand-written SQL starts empty rather than creating the extension again.
    await migrateDev('hand_sql', '--create-only')
    const [draft] = (await readdir(join(app, 'prisma/migrations'))).filter((entry) => entry.endsWith('_hand_sql'))
    expect(await readFile(join(app, 'prisma/migrations', draft!, 'migration.sql'), 'utf8')).not.toContain('CREATE EXTENSION')
  } finally {
    await rm(app, { recursive: true, force: true })
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await admin.end()
  }
}, 120_000)
