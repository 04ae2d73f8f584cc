/**
 * The plan stage: the resolved entities → every file `a2a generate entities` owns, as
 * `path → content` in memory, formatted and sorted. Nothing here touches the app's disk but the
 * reading in `plan()`; `planFrom()` is pure, which is what the golden tests run.
 * @module
 */
import { readFile, stat } from 'node:fs/promises'
import { join, posix } from 'node:path'
import { defaultSchemaPath, fingerprintInputs } from '../inputs.js'
import { loadDeclarations } from '../read/declarations.js'
import { type PrismaSchema, parseSchema, readPrismaSchema } from '../read/prisma-schema.js'
import type { ResolvedEntity, RowRecipe } from '../read/resolved.js'
import { keyedRowRecipe } from '../read/row-recipe.js'
import { validateEntities } from '../read/validate.js'
import { accessFile } from './access-file.js'
import { entityFile, hooksOf } from './entity-file.js'
import { format } from './format.js'
import { formatTypeBlocks } from './format-types.js'
import { inputTypes } from './input-types.js'
import { entityNames } from './names.js'
import { ownersFile } from './owners.js'
import { seedFile, seedOwnerModels } from './seed-file.js'
import { render } from './templates.js'
import { entityTestFile } from './test-file.js'

export interface PlannedFile {
  /** Relative to the app root, POSIX separators. */
  path: string
  content: string
  /** `generated` files are rewritten every run; `user` files are created once and then left alone. */
  ownership: 'generated' | 'user'
}

export interface Plan {
  /** Sorted by path. */
  files: PlannedFile[]
  /** What the generator left out of the entities, and why (`issues: no create operation: …`). */
  notes?: string[]
  /**
   * The fingerprint of the inputs the plan was made from (see `inputs.ts`), recorded in the
   * manifest so an unchanged app can skip planning; absent when it could not be worked out.
   */
  inputs?: string
}

export interface PlanInput {
  appRoot: string
  /** Default `src/entities.ts`. */
  entitiesFile?: string
  /** A schema file or a folder of .prisma files. Default `prisma` (a folder), else `prisma/schema.prisma`. */
  schemaPath?: string
  /** Default `src/a2a`. */
  outDir?: string
  /** Default `test/entities`; the tests' `support.ts` goes in its parent folder. */
  testDir?: string
  /** Default `@a2a-agent/runtime`. */
  runtimeImport?: string
  /** The module exporting `type Db` and `createDb`. Default `src/db.ts`. */
  dbImport?: string
}

export interface PlanOptions {
  outDir: string
  testDir: string
  runtimeImport: string
  dbImport: string
  /** The app module exporting `createApp`, which the tests' support starts. */
  appImport: string
  /** Where `a2a.prisma` goes: the schema folder. */
  schemaDir: string
  /** The datasource's provider: `mysql` gives a2a.prisma the column types MySQL needs. */
  provider?: string
  /**
   * The app's seed (yours, created once), when Prisma's seed command runs `<schemaDir>/seed.ts`;
   * `fallbackOwner` is the model it makes rows of when no entity names an owner model.
   */
  seed?: { path: string; fallbackOwner?: RowRecipe }
}

export const DEFAULT_OPTIONS: PlanOptions = {
  outDir: 'src/a2a',
  testDir: 'test/entities',
  runtimeImport: '@a2a-agent/runtime',
  dbImport: 'src/db.ts',
  appImport: 'src/app.ts',
  schemaDir: 'prisma',
}

/** Reads the declarations and the Prisma schema under `appRoot`, validates them, and plans every file. */
export async function plan(input: PlanInput): Promise<Plan> {
  const { appRoot } = input
  const entitiesFile = input.entitiesFile ?? 'src/entities.ts'
  const schemaPath = input.schemaPath ?? (await defaultSchemaPath(appRoot))
  // Taken before the reading: an edit racing this run then changes the fingerprint, never the
  // other way round (a fingerprint newer than the plan would let the next run skip wrongly).
  const inputs = await fingerprintInputs({ ...input, entitiesFile, schemaPath })
  const [declarations, schema] = await Promise.all([loadDeclarations(appRoot, entitiesFile), readPrismaSchema(appRoot, schemaPath)])
  const entities = validateEntities(declarations, schema.datamodel, entitiesFile)
  const isFolder = (await stat(join(appRoot, schemaPath))).isDirectory()
  const schemaDir = toPosix(isFolder ? schemaPath : posix.dirname(toPosix(schemaPath)))
  const planned = await planFrom(entities, {
    ...DEFAULT_OPTIONS,
    ...definedOnly({ outDir: input.outDir, testDir: input.testDir, runtimeImport: input.runtimeImport, dbImport: input.dbImport }),
    schemaDir,
    ...definedOnly({ provider: schema.provider }),
    ...(await seedOption(appRoot, schemaDir, schema)),
  })
  if (inputs === undefined) return planned
  // The fingerprint leaves out the a2a.prisma this run writes into a schema folder (the manifest
  // hash covers it). So record the fingerprint only when the schema with the written a2a.prisma
  // resolves to the same entities, i.e. when the next run would plan exactly this again.
  if (isFolder) {
    const a2a = planned.files.find((file) => file.path === posix.join(schemaDir, 'a2a.prisma'))?.content
    if (!sameEntitiesWith(a2a, schemaDir, schema, declarations, entitiesFile, entities)) return planned
  }
  return { ...planned, inputs }
}

/**
 * The seed is planned only where `prisma.config.ts` (its `seed` command) runs `<schemaDir>/seed.ts`,
 * as scaffolded apps do: an app seeding some other way keeps it.
 */
async function seedOption(appRoot: string, schemaDir: string, schema: PrismaSchema): Promise<Pick<PlanOptions, 'seed'>> {
  const path = posix.join(schemaDir, 'seed.ts')
  const config = await readFile(join(appRoot, 'prisma.config.ts'), 'utf8').catch(() => '')
  if (!config.split('\n').some((line) => /\bseed:/.test(line) && line.includes(` ${path}`))) return {}
  const user = schema.datamodel.models.find((model) => model.name === 'User')
  const fallbackOwner = user && keyedRowRecipe(schema.datamodel, user, user.name)
  return { seed: { path, ...(fallbackOwner ? { fallbackOwner } : {}) } }
}

function sameEntitiesWith(
  a2a: string | undefined,
  schemaDir: string,
  schema: PrismaSchema,
  declarations: unknown,
  entitiesFile: string,
  entities: readonly ResolvedEntity[],
): boolean {
  const path = posix.join(schemaDir, 'a2a.prisma')
  const read = schema.sources.find(([file]) => file === path)?.[1]
  if (read === a2a) return true
  if (a2a === undefined) return false
  const after: [string, string][] = [...schema.sources.filter(([file]) => file !== path), [path, a2a]]
  after.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  try {
    const again = validateEntities(declarations, parseSchema(after, schemaDir), entitiesFile)
    return JSON.stringify(again) === JSON.stringify(entities)
  } catch {
    return false
  }
}

/** Plans every file from resolved entities; deterministic and free of disk access. */
export async function planFrom(entities: readonly ResolvedEntity[], options: PlanOptions = DEFAULT_OPTIONS): Promise<Plan> {
  const { outDir, testDir, runtimeImport: runtime } = options
  const supportPath = posix.join(posix.dirname(testDir), 'support.ts')
  const accessPath = posix.join(posix.dirname(testDir), 'access.gen.ts')
  const barrel = posix.join(outDir, 'entities.gen.ts')
  const files: PlannedFile[] = []
  const add = (path: string, content: string, ownership: PlannedFile['ownership'] = 'generated') => files.push({ path: posix.normalize(path), content: format(content), ownership })

  const owned = new Map<string, ResolvedEntity>()
  for (const entity of entities) if (!owned.has(entity.model)) owned.set(entity.model, entity)
  const types = await formatTypeBlocks(await inputTypes(entities))
  for (const [index, entity] of entities.entries()) {
    const { stem } = entityNames(entity)
    const path = posix.join(outDir, `${stem}.gen.ts`)
    const hooksPath = posix.join(outDir, 'hooks', `${stem}.ts`)
    const hooks = hooksOf(entity)
    const refusals = importPath(path, posix.join(outDir, 'refusals.gen.ts'))
    add(path, entityFile(entity, types[index] ?? '', { runtime, db: importPath(path, options.dbImport), hooks: importPath(path, hooksPath), refusals }, owned))
    if (hooks.length > 0) add(hooksPath, hooksFile(entity, runtime, importPath(hooksPath, path)), 'user')
    const testPath = posix.join(testDir, `${stem}.gen.test.ts`)
    add(testPath, entityTestFile(entity, entities, { support: importPath(testPath, supportPath), access: importPath(testPath, accessPath), runtime }))
  }

  if (entities.some((entity) => hooksOf(entity).length > 0)) add(posix.join(outDir, 'refusals.gen.ts'), render('refusals.gen.ts', { runtime }))
  add(barrel, entitiesFile(entities, runtime, importPath(barrel, options.dbImport)))
  add(posix.join(options.schemaDir, 'a2a.prisma'), render('a2a.prisma', { mysql: options.provider === 'mysql' }))
  add(accessPath, accessFile(entities, { runtime, tools: importPath(accessPath, barrel), db: importPath(accessPath, options.dbImport) }))
  add(posix.join(posix.dirname(testDir), 'owners.gen.ts'), ownersFile(entities, importPath(supportPath, options.dbImport)))
  if (options.seed) {
    const { path, fallbackOwner } = options.seed
    add(path, seedFile(seedOwnerModels(entities, fallbackOwner), { runtime, db: importPath(path, options.dbImport) }), 'user')
  }
  add(supportPath, supportFile(runtime, importPath(supportPath, options.appImport), importPath(supportPath, options.dbImport)), 'user')

  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { files, notes: entities.flatMap((entity) => entity.notes.map((note) => `${entity.name}: ${note}`)) }
}

function hooksFile(entity: ResolvedEntity, runtime: string, genModule: string): string {
  const names = entityNames(entity)
  const has = (op: 'create' | 'update' | 'delete') => entity.operations.includes(op)
  const types = [
    ...(has('update') || has('delete') ? [names.row] : []),
    ...(has('create') ? [names.operations.create.input] : []),
    ...(has('update') ? [names.operations.update.input] : []),
  ]
  return render('hooks.ts', {
    entity: entity.name,
    runtime,
    genModule,
    typeImports: types.join(', '),
    singular: names.singular,
    article: /^[aeiou]/.test(names.singular) ? 'an' : 'a',
    row: names.row,
    create: has('create') && hook('beforeCreate', [`_input: ${names.operations.create.input}`]),
    update: has('update') && hook('beforeUpdate', [`_input: ${names.operations.update.input}`, `_current: ${names.row}`]),
    delete: has('delete') && hook('beforeDelete', [`_current: ${names.row}`]),
  })
}

// A no-op hook, its parameters on one line when they fit (as prettier lays them out).
function hook(name: string, params: string[]): string {
  const all = [...params, '_context: ToolContext']
  const flat = `export async function ${name}(${all.join(', ')}): Promise<void> {}`
  return flat.length <= 100 ? flat : `export async function ${name}(\n${all.map((param) => `  ${param},`).join('\n')}\n): Promise<void> {}`
}

function entitiesFile(entities: readonly ResolvedEntity[], runtime: string, db: string): string {
  const calls = entities.map((entity) => `...${entityNames(entity).toolsFunction}(db)`)
  const flat = `[${calls.join(', ')}]`
  return render('entities.gen.ts', {
    runtime,
    db,
    entities: entities.map((entity) => entityNames(entity)),
    // With no entities there is nothing to call, and the parameter says it is unused.
    param: entities.length > 0 ? 'db' : '_db',
    body: `  return ${flat}`.length <= 100 ? flat : `[\n${calls.map((call) => `    ${call},`).join('\n')}\n  ]`,
  })
}

function supportFile(runtime: string, app: string, db: string): string {
  return render('support.ts', { runtime, app, db })
}

/** The import specifier of `to` from `from` (both app-relative): `../db.js`, `./hooks/notes.js`. */
export function importPath(from: string, to: string): string {
  const relative = posix.relative(posix.dirname(from), to).replace(/\.(m|c)?tsx?$/, (ext) => (ext.startsWith('.m') ? '.mjs' : ext.startsWith('.c') ? '.cjs' : '.js'))
  return relative.startsWith('.') ? relative : `./${relative}`
}

function definedOnly<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>
}

const toPosix = (path: string) => path.replace(/\\/g, '/')
