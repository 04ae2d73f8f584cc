// `npm run db:change -- --name <change>`: after an edit of prisma/schema.prisma, regenerate the
// entity code and the PostgreSQL and MySQL twins of the schema, then `prisma migrate dev --name
// <change>` for each database this app keeps a history for: SQLite (dev.db, prisma/migrations) and
// PostgreSQL (A2A_PG_DEV_URL, default postgresql://postgres@localhost:5432/invoices, created when
// missing; prisma-postgresql/migrations), and `a2a migrate dev` for MySQL (A2A_MYSQL_DEV_URL,
// default mysql://root@localhost:3306/invoices, created when missing; prisma-mysql/migrations).
// Each migration is applied to that database on the way.
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import pg from 'pg'

const { values } = parseArgs({ options: { name: { type: 'string' } } })
if (!values.name) {
  console.error('db:change: name the change, e.g. npm run db:change -- --name add_due_date')
  process.exit(1)
}
const postgresqlUrl = process.env.A2A_PG_DEV_URL ?? 'postgresql://postgres@localhost:5432/invoices'
const mysqlUrl = process.env.A2A_MYSQL_DEV_URL ?? 'mysql://root@localhost:3306/invoices'

const run = (command: string, args: string[], env: Record<string, string> = {}) => execFileSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } })

/** With a driver adapter Prisma never creates the database itself. */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url)
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.href })
  try {
    await client.connect()
  } catch (error) {
    console.error(`db:change: cannot reach PostgreSQL at ${target.host} (${(error as Error).message}); start it, or set A2A_PG_DEV_URL to a database you can reach`)
    process.exit(1)
  }
  const name = decodeURIComponent(target.pathname.slice(1))
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
  if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`)
  await client.end()
}

run('npm', ['run', '--silent', 'generate'])
for (const url of ['file:./dev.db', postgresqlUrl]) {
  if (url !== 'file:./dev.db') await ensureDatabase(url)
  // deploy first: `migrate dev` on a database that has not seen the history yet stops early.
  run('npx', ['prisma', 'migrate', 'deploy'], { DATABASE_URL: url })
  run('npx', ['prisma', 'migrate', 'dev', '--name', values.name], { DATABASE_URL: url })
}
// Prisma's wasm schema engine has no MySQL connector: a2a migrate writes the same format, applies
// what is pending first, and creates the database when missing.
run('npx', ['a2a', 'migrate', 'dev', '--schema', 'prisma-mysql', '--name', values.name], { DATABASE_URL: mysqlUrl })
