// Prepares the PrismaStore test fixtures (npm run generate:fixtures -w packages/runtime): renders
// the task-store models from the generator's template into each provider's schema folder, then
// generates its client and its schema SQL, which the tests apply to a fresh database: Prisma's
// `migrate diff --from-empty` on SQLite and PostgreSQL; on MySQL, whose connector Prisma 6.19's
// wasm schema engine lacks, the differ `a2a migrate` writes migrations with. Skips a provider
// whose inputs did not change since its last run. Runs under tsx: the differ is TypeScript.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { diffSchemas, readMysqlSchema } from '@a2a-agent/generators/mysql'
import Handlebars from 'handlebars'

const require = createRequire(import.meta.url)
const run = promisify(execFile)
const here = new URL('./', import.meta.url)
const template = new URL('../../../../../../templates/entity/a2a.prisma.hbs', import.meta.url)
const prisma = require.resolve('prisma/build/index.js')

// The generator's own options (generators/src/plan/plan.ts): MySQL gets its own column types.
const modelsFor = (name) => Handlebars.compile(readFileSync(template, 'utf8'), { noEscape: true, strict: true })({ mysql: name === 'mysql' })

// Every prisma command reads env("DATABASE_URL"); unset, the CLI falls back to downloading engines.
// `migrate diff` opens the adapter, so the PostgreSQL one needs a reachable server (the tests' own).
const providers = {
  sqlite: 'file::memory:',
  postgres: process.env.A2A_TEST_PG_URL ?? 'postgresql://root@127.0.0.1:5432/postgres',
  // Read by `prisma generate` only: the differ needs no server.
  mysql: 'mysql://root@127.0.0.1:3306/mysql',
}

async function prepare(name, url) {
  const dir = new URL(`${name}/`, here)
  const stamp = new URL('generated/inputs.sha256', dir)
  const a2a = new URL('a2a.prisma', dir)
  const models = modelsFor(name)
  if (!existsSync(a2a) || readFileSync(a2a, 'utf8') !== models) writeFileSync(a2a, models)
  const hash = createHash('sha256')
  for (const file of ['schema.prisma', 'a2a.prisma', 'prisma.config.ts']) hash.update(readFileSync(new URL(file, dir)))
  hash.update(require('prisma/package.json').version)
  const digest = hash.digest('hex')
  const schemaSql = new URL('generated/schema.sql', dir)
  // The differ runs in-process in milliseconds: its SQL is written every run (when it changed), so
  // an edit to the differ reaches the fixture without a stamp of its own.
  if (name === 'mysql') await writeMysqlSchema(dir, schemaSql)
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest && [new URL('generated/client/client.ts', dir), schemaSql].every(existsSync)) return `${name}: up to date`
  const options = { cwd: dir, env: { ...process.env, DATABASE_URL: url } }
  await run(process.execPath, [prisma, 'generate'], options)
  if (name !== 'mysql') {
    const { stdout } = await run(process.execPath, [prisma, 'migrate', 'diff', '--from-empty', '--to-schema-datamodel', '.', '--script'], options)
    writeFileSync(schemaSql, stdout)
  }
  writeFileSync(stamp, digest)
  return `${name}: generated`
}

/** The SQL `a2a migrate dev` would write for the schema in `dir` on an empty database. */
async function writeMysqlSchema(dir, file) {
  const { statements } = diffSchemas({ tables: [] }, await readMysqlSchema(fileURLToPath(dir), '.'))
  const sql = `${statements.join('\n\n')}\n`
  mkdirSync(new URL('./', file), { recursive: true })
  if (!existsSync(file) || readFileSync(file, 'utf8') !== sql) writeFileSync(file, sql)
}

for (const line of await Promise.all(Object.entries(providers).map(([name, url]) => prepare(name, url)))) console.log(line)
