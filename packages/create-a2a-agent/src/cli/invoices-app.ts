/**
 * The invoices example as the app of the CLI's database tests: `a2a` run in its folder (its
 * src/db.ts), on a temporary copy of its migrated SQLite database that DATABASE_URL names.
 * @module
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { runA2a } from './index.js'
import { captureIo } from './test-io.js'

const app = fileURLToPath(new URL('../../../../examples/invoices/', import.meta.url))
const migrations = join(app, 'prisma/migrations')

/** Runs `a2a <args>` in the invoices app, in-process. */
export async function a2aInInvoices(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { io, stdout, stderr } = captureIo()
  const code = await runA2a(args, io, { cwd: app })
  return { code, stdout: stdout(), stderr: stderr() }
}

/**
 * A fresh SQLite file with every invoices migration applied (and `seed`'s rows), named by
 * DATABASE_URL until `remove()` puts the variable back and deletes it.
 */
export function migratedInvoicesDb(prefix: string, seed?: (sqlite: Database.Database) => void): { file: string; remove(): void } {
  const savedUrl = process.env.DATABASE_URL
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const file = join(dir, 'app.db')
  const sqlite = new Database(file)
  for (const name of readdirSync(migrations)
    .filter((entry) => /^\d/.test(entry))
    .sort()) {
    sqlite.exec(readFileSync(join(migrations, name, 'migration.sql'), 'utf8'))
  }
  seed?.(sqlite)
  sqlite.close()
  process.env.DATABASE_URL = `file:${file}`
  return {
    file,
    remove() {
      if (savedUrl === undefined) delete process.env.DATABASE_URL
      else process.env.DATABASE_URL = savedUrl
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
