import { databaseUrl, isPostgresqlUrl, prismaConfig } from '../../packages/runtime/src/prisma-config.js'

// DATABASE_URL (from the environment or .env) picks the database: a `file:` URL is SQLite
// (prisma/), a `postgresql://` URL is PostgreSQL (prisma-postgresql/, prisma/ for that provider).
const defaultUrl = 'file:./dev.db'

export default prismaConfig({
  defaultUrl,
  schema: isPostgresqlUrl(databaseUrl(defaultUrl)) ? 'prisma-postgresql' : 'prisma',
  seed: 'tsx --conditions=@a2a-agent/source scripts/seed.ts',
})
