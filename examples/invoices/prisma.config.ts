import { databaseUrl, isMysqlUrl, isPostgresqlUrl, prismaConfig } from '../../packages/runtime/src/prisma-config.js'

// DATABASE_URL (from the environment or .env) picks the database: a `file:` URL is SQLite
// (prisma/), a `postgresql://` URL is PostgreSQL (prisma-postgresql/, prisma/ for that provider),
// a `mysql://` URL MySQL or MariaDB (prisma-mysql/; migrated with `a2a migrate`).
const defaultUrl = 'file:./dev.db'
const url = databaseUrl(defaultUrl)

export default prismaConfig({
  defaultUrl,
  schema: isPostgresqlUrl(url) ? 'prisma-postgresql' : isMysqlUrl(url) ? 'prisma-mysql' : 'prisma',
  seed: 'tsx --conditions=@a2a-agent/source scripts/seed.ts',
})
