// prisma-postgresql/ and prisma-mysql/ are the PostgreSQL and MySQL twins of prisma/: Prisma needs
// the datasource provider as a literal and a client generated per provider, so each holds a copy of
// the schema with the provider and the client's output changed, and the a2a.prisma that `a2a
// generate entities` writes for that provider (MySQL's has longer text columns). prisma/ stays the
// one to edit; this script writes the copies (`--check`: exit 1 when they are stale, for CI). Each
// folder keeps its own migrations.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Handlebars from 'handlebars'

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

/** prisma/schema.prisma for `provider`, its client generated into src/generated/<provider>. */
function twinSchema(root: string, provider: 'postgresql' | 'mysql'): string {
  // The source's leading comment speaks of prisma/; the copy says where it comes from instead.
  let schema = readFileSync(`${root}/prisma/schema.prisma`, 'utf8').replace(/^(\/\/.*\n)+/, '')
  schema = replaceOnce(schema, 'provider = "sqlite"', `provider = "${provider}"`)
  schema = replaceOnce(schema, '"../src/generated/prisma"', `"../src/generated/${provider}"`)
  return HEADER + schema
}

/** The files prisma-postgresql/ must hold, path (relative to the app) to content, from prisma/. */
export function postgresqlSchemaFiles(root = app): Map<string, string> {
  return new Map([
    ['prisma-postgresql/schema.prisma', twinSchema(root, 'postgresql')],
    ['prisma-postgresql/a2a.prisma', readFileSync(`${root}/prisma/a2a.prisma`, 'utf8')],
  ])
}

/** The files prisma-mysql/ must hold; its a2a.prisma is the generator's template rendered for MySQL. */
export function mysqlSchemaFiles(root = app): Map<string, string> {
  const template = readFileSync(new URL('../../../templates/entity/a2a.prisma.hbs', import.meta.url), 'utf8')
  return new Map([
    ['prisma-mysql/schema.prisma', twinSchema(root, 'mysql')],
    ['prisma-mysql/a2a.prisma', Handlebars.compile(template, { noEscape: true, strict: true })({ mysql: true })],
  ])
}

/** The paths of `files` (default: both twins) whose content differs from what prisma/ implies. */
export function stalePostgresqlSchemaFiles(root = app, files = new Map([...postgresqlSchemaFiles(root), ...mysqlSchemaFiles(root)])): string[] {
  const current = (path: string) => {
    try {
      return readFileSync(`${root}/${path}`, 'utf8')
    } catch {
      return undefined
    }
  }
  return [...files].filter(([path, content]) => current(path) !== content).map(([path]) => path)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = stalePostgresqlSchemaFiles()
    if (stale.length > 0) {
      console.error(`Stale: ${stale.join(', ')}. Run \`npm run generate:prisma\` and commit the result.`)
      process.exit(1)
    }
  } else {
    for (const [path, content] of [...postgresqlSchemaFiles(), ...mysqlSchemaFiles()]) writeFileSync(`${app}/${path}`, content)
  }
}
