// prisma-postgresql/ is the PostgreSQL twin of prisma/: Prisma needs the datasource provider as a
// literal and a client generated per provider, so that folder holds a copy of the schema with the
// provider and the client's output changed, and of the a2a.prisma that `a2a generate entities`
// writes. prisma/ stays the one to edit; this script writes the copies (`--check`: exit 1 when they
// are stale, for CI). Each folder keeps its own migrations.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const app = fileURLToPath(new URL('../', import.meta.url))
const HEADER = '// Generated from prisma/schema.prisma by scripts/postgresql-schema.ts (npm run generate:prisma). Edit that file, not this one.\n'

/** `text` with `from` replaced by `to`, where `from` must occur exactly once. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from)
  if (at < 0 || text.indexOf(from, at + 1) >= 0) {
    throw new Error(`prisma/schema.prisma must contain ${JSON.stringify(from)} exactly once (scripts/postgresql-schema.ts rewrites it for PostgreSQL)`)
  }
  return text.slice(0, at) + to + text.slice(at + from.length)
}

/** The files prisma-postgresql/ must hold, path (relative to the app) to content, from prisma/. */
export function postgresqlSchemaFiles(root = app): Map<string, string> {
  const read = (path: string) => readFileSync(`${root}/${path}`, 'utf8')
  // The source's leading comment speaks of prisma/; the copy says where it comes from instead.
  let schema = read('prisma/schema.prisma').replace(/^(\/\/.*\n)+/, '')
  schema = replaceOnce(schema, 'provider = "sqlite"', 'provider = "postgresql"')
  schema = replaceOnce(schema, '"../src/generated/prisma"', '"../src/generated/postgresql"')
  return new Map([
    ['prisma-postgresql/schema.prisma', HEADER + schema],
    ['prisma-postgresql/a2a.prisma', read('prisma/a2a.prisma')],
  ])
}

/** The paths whose content differs from what prisma/ implies. */
export function stalePostgresqlSchemaFiles(root = app): string[] {
  const current = (path: string) => {
    try {
      return readFileSync(`${root}/${path}`, 'utf8')
    } catch {
      return undefined
    }
  }
  return [...postgresqlSchemaFiles(root)].filter(([path, content]) => current(path) !== content).map(([path]) => path)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = stalePostgresqlSchemaFiles()
    if (stale.length > 0) {
      console.error(`Stale: ${stale.join(', ')}. Run \`npm run generate:prisma\` and commit the result.`)
      process.exit(1)
    }
  } else {
    for (const [path, content] of postgresqlSchemaFiles()) writeFileSync(`${app}/${path}`, content)
  }
}
