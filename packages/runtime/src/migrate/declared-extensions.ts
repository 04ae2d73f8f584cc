/**
 * P8: Prisma 6.19's wasm schema engine builds its connector from the adapter alone
 * (`SqlSchemaConnector::new_from_external`), without the schema's preview features. It reads
 * pg_extension, then drops what it read because `postgresqlExtensions` looks disabled; the schema
 * side keeps its `extensions = [...]`. So every `migrate dev` writes the same `CREATE EXTENSION`
 * migration again. The engine's `createMigration` result is corrected here: an extension that the
 * migration history already creates is left out, and a migration left empty is none at all.
 * @module
 */

interface MigrationDirectory {
  migrationFile: { content: { tag: 'ok' | 'error'; value: string } }
}
export interface CreateMigrationInput {
  draft: boolean
  migrationsList: { migrationDirectories: MigrationDirectory[]; shadowDbInitScript?: string }
}
export interface CreateMigrationOutput {
  migrationScript: string | null
}

// How the engine renders a CreateExtension step (with optional WITH SCHEMA / VERSION).
const RENDERED_CREATE = /-- CreateExtension\nCREATE EXTENSION IF NOT EXISTS "([^"]+)"[^;]*;\n*/g
const STATEMENT = /\b(CREATE|DROP)\s+EXTENSION\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:"([^"]+)"|([\w-]+))/gi
// What the engine writes for a draft with no steps.
const EMPTY_MIGRATION = '-- This is an empty migration.'

/** The extensions the migration history (and shadow database init script) leaves created, in order. */
export function extensionsCreatedBy(scripts: string[]): Set<string> {
  const created = new Set<string>()
  for (const script of scripts) {
    for (const [, verb, quoted, bare] of script.matchAll(STATEMENT)) {
      const name = quoted ?? bare!.toLowerCase()
      if (verb!.toUpperCase() === 'CREATE') created.add(name)
      else created.delete(name)
    }
  }
  return created
}

/** `output` without the CreateExtension steps the history already took. */
export function withoutRecreatedExtensions(input: CreateMigrationInput, output: CreateMigrationOutput): CreateMigrationOutput {
  const script = output.migrationScript
  if (script === null || !script.includes('-- CreateExtension')) return output
  const { migrationDirectories, shadowDbInitScript } = input.migrationsList
  const history = [shadowDbInitScript ?? '', ...migrationDirectories.map(({ migrationFile }) => (migrationFile.content.tag === 'ok' ? migrationFile.content.value : ''))]
  const created = extensionsCreatedBy(history)
  const kept = script.replace(RENDERED_CREATE, (step, name: string) => (created.has(name) ? '' : step))
  if (kept === script) return output
  if (kept.trim() !== '') return { ...output, migrationScript: kept }
  return { ...output, migrationScript: input.draft ? EMPTY_MIGRATION : null }
}

const PATCHED = Symbol.for('@a2a-agent/runtime:declared-extensions')

/** Wraps the wasm SchemaEngine's `createMigration` (given the prototype of a wasm-bindgen object). */
export function fixCreateMigration(prototype: object): void {
  const target = prototype as { createMigration?: ((input: CreateMigrationInput) => Promise<CreateMigrationOutput>) & { [PATCHED]?: true } }
  const createMigration = target.createMigration
  if (typeof createMigration !== 'function' || createMigration[PATCHED]) return
  target.createMigration = Object.assign(
    async function (this: unknown, input: CreateMigrationInput) {
      return withoutRecreatedExtensions(input, await createMigration.call(this, input))
    },
    { [PATCHED]: true as const },
  )
}
