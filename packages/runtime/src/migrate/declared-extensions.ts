/**
 * P8: Prisma 6.19's wasm schema engine builds its connector from the adapter alone
 * (`SqlSchemaConnector::new_from_external`), without the schema's preview features. It reads
 * pg_extension, then drops what it read because `postgresqlExtensions` looks disabled; the schema
 * side keeps its `extensions = [...]`. So every `migrate dev` writes the same `CREATE EXTENSION`
 * migration again. The engine's `createMigration` result is corrected here: an extension that the
 * migration history already creates is left out, and a migration left empty is none at all.
 *
 * P9: for the same reason, an extension taken out of `extensions = [...]` is never dropped. One that
 * an earlier migration created from the declaration (the engine's `-- CreateExtension` step) and
 * that the schema no longer declares gets `DROP EXTENSION IF EXISTS` at the end of the next
 * migration, after the steps that stop using it. Extensions created by hand-written SQL are the
 * user's and stay. `evaluateDataLoss` counts the drops as steps, so `migrate dev` takes the
 * `--name` (or asks for one) when they are the only change.
 * @module
 */

interface MigrationDirectory {
  migrationFile: { content: { tag: 'ok' | 'error'; value: string } }
}
interface MigrationsList {
  migrationDirectories: MigrationDirectory[]
  shadowDbInitScript?: string
}
/** The schema as the CLI hands it to the engine: every file of a multi-file schema. */
export interface SchemaFiles {
  files: { path: string; content: string }[]
}
export interface CreateMigrationInput {
  draft: boolean
  migrationsList: MigrationsList
  schema?: SchemaFiles
}
export interface CreateMigrationOutput {
  migrationScript: string | null
}
export interface EvaluateDataLossInput {
  migrationsList: MigrationsList
  schema?: SchemaFiles
}
export interface EvaluateDataLossOutput {
  migrationSteps: number
}

// How the engine renders a CreateExtension step (with optional WITH SCHEMA / VERSION).
const RENDERED_CREATE = /-- CreateExtension\nCREATE EXTENSION IF NOT EXISTS "([^"]+)"[^;]*;\n*/g
const STATEMENT = /\b(CREATE|DROP)\s+EXTENSION\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:"([^"]+)"|([\w-]+))/gi
// What the engine writes for a draft with no steps.
const EMPTY_MIGRATION = '-- This is an empty migration.'

/**
 * The extensions the migration history (and shadow database init script) leaves created, in order.
 * With `fromDeclarations`, only those created by the engine's rendered step (a declaration), not by hand-written SQL.
 */
export function extensionsCreatedBy(scripts: string[], { fromDeclarations = false } = {}): Set<string> {
  const created = new Set<string>()
  for (const script of scripts) {
    const rendered = fromDeclarations ? new Set([...script.matchAll(RENDERED_CREATE)].map((step) => step[1]!)) : undefined
    for (const [, verb, quoted, bare] of script.matchAll(STATEMENT)) {
      const name = quoted ?? bare!.toLowerCase()
      if (verb!.toUpperCase() === 'DROP') created.delete(name)
      else if (!rendered || rendered.has(name)) created.add(name)
    }
  }
  return created
}

/** The scripts of the migration history, the shadow database's init script first. */
function historyOf({ migrationDirectories, shadowDbInitScript }: MigrationsList): string[] {
  return [shadowDbInitScript ?? '', ...migrationDirectories.map(({ migrationFile }) => (migrationFile.content.tag === 'ok' ? migrationFile.content.value : ''))]
}

/**
 * The extensions (their database names) the schema declares, or undefined when it manages none:
 * no `postgresqlExtensions` preview feature, or no PostgreSQL datasource.
 */
export function declaredExtensions(schema: SchemaFiles): Set<string> | undefined {
  // Comments out first: a commented-out `extensions = [...]` declares nothing.
  const text = schema.files.map((file) => file.content.replace(/\/\/.*$/gm, '')).join('\n')
  const generators = [...text.matchAll(/\bgenerator\s+\w+\s*\{([^}]*)\}/g)].map((block) => block[1]!)
  if (!generators.some((block) => /previewFeatures\s*=\s*\[[^\]]*"postgresqlExtensions"/.test(block))) return undefined
  const datasource = /\bdatasource\s+\w+\s*\{((?:[^{}"]|"[^"]*")*)\}/.exec(text)?.[1]
  if (!datasource || !/\bprovider\s*=\s*"postgres(?:ql)?"/.test(datasource)) return undefined
  const list = /\bextensions\s*=\s*\[((?:[^\]"]|"[^"]*")*)\]/.exec(datasource)?.[1] ?? ''
  const declared = new Set<string>()
  // `citext`, `uuid_ossp(map: "uuid-ossp", schema: "extensions")`: the database name is `map`'s, else the name.
  for (const [, name, args] of list.matchAll(/([\w-]+)\s*(?:\(((?:[^)"]|"[^"]*")*)\))?/g)) {
    declared.add(/\bmap\s*:\s*"([^"]+)"/.exec(args ?? '')?.[1] ?? name!)
  }
  return declared
}

/** Declared extensions that the schema no longer declares, in the order they were created. */
export function removedExtensions(migrationsList: MigrationsList, schema: SchemaFiles | undefined): string[] {
  const declared = schema && declaredExtensions(schema)
  if (!declared) return []
  return [...extensionsCreatedBy(historyOf(migrationsList), { fromDeclarations: true })].filter((name) => !declared.has(name))
}

/**
 * `output` without the CreateExtension steps the history already took, and with a DropExtension
 * step for each declared extension the schema dropped.
 */
export function withoutRecreatedExtensions(input: CreateMigrationInput, output: CreateMigrationOutput): CreateMigrationOutput {
  const drops = removedExtensions(input.migrationsList, input.schema).map((name) => `-- DropExtension\nDROP EXTENSION IF EXISTS "${name}";\n`)
  const script = output.migrationScript
  let kept = script ?? ''
  if (kept.includes('-- CreateExtension')) {
    const created = extensionsCreatedBy(historyOf(input.migrationsList))
    kept = kept.replace(RENDERED_CREATE, (step, name: string) => (created.has(name) ? '' : step))
  }
  if (drops.length > 0) kept = [kept.trim() === '' || kept === EMPTY_MIGRATION ? '' : `${kept.trimEnd()}\n\n`, ...drops].join('')
  if (kept === (script ?? '')) return output
  if (kept.trim() !== '') return { ...output, migrationScript: kept }
  return { ...output, migrationScript: input.draft ? EMPTY_MIGRATION : null }
}

/** The engine's step count, with the extension drops the migration will add. */
export function withExtensionDrops(input: EvaluateDataLossInput, output: EvaluateDataLossOutput): EvaluateDataLossOutput {
  const drops = removedExtensions(input.migrationsList, input.schema).length
  return drops === 0 ? output : { ...output, migrationSteps: output.migrationSteps + drops }
}

const PATCHED = Symbol.for('@a2a-agent/runtime:declared-extensions')

/** Wraps the wasm SchemaEngine's `createMigration` and `evaluateDataLoss` (given the prototype of a wasm-bindgen object). */
export function fixDeclaredExtensions(prototype: object): void {
  correctResult(prototype, 'createMigration', withoutRecreatedExtensions)
  correctResult(prototype, 'evaluateDataLoss', withExtensionDrops)
}

function correctResult<I, O>(prototype: object, method: string, correct: (input: I, output: O) => O): void {
  const target = prototype as Record<string, ((input: I) => Promise<O>) & { [PATCHED]?: true }>
  const original = target[method]
  if (typeof original !== 'function' || original[PATCHED]) return
  target[method] = Object.assign(
    async function (this: unknown, input: I) {
      return correct(input, await original.call(this, input))
    },
    { [PATCHED]: true as const },
  )
}
