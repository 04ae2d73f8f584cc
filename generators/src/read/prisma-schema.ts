/**
 * Reads the app's Prisma schema, one file or a folder of `.prisma` files (Prisma's multi-file
 * schema), through Prisma's own parser compiled to wasm: the DMMF it returns is exactly what
 * `prisma generate` sees, `///` documentation included.
 * @module
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import wasm from '@prisma/prisma-schema-wasm/src/prisma_schema_build.js'
import { GeneratorError } from '../errors.js'
import type { Datamodel, DmmfField } from './dmmf.js'

export interface PrismaSchema {
  /** The schema files read, as paths relative to the app root, sorted. */
  files: string[]
  /** `[path, text]` of every file read, in `files` order. */
  sources: [string, string][]
  datamodel: Datamodel
  /** The datasource's provider (`sqlite`, `postgresql`, `mysql`, …); absent without a datasource block. */
  provider?: string
}

/** `path` is absolute or relative to `appRoot`; messages name files relative to the app root. */
export async function readPrismaSchema(appRoot: string, path: string): Promise<PrismaSchema> {
  const absolute = join(appRoot, path)
  const shown = toPosix(relative(appRoot, absolute))
  const info = await stat(absolute).catch(() => undefined)
  if (!info) {
    throw new GeneratorError(`${shown}: no Prisma schema there; create it, or pass the schema file or folder with --schema`, shown)
  }
  const paths = info.isDirectory() ? await prismaFiles(absolute) : [absolute]
  if (paths.length === 0) throw new GeneratorError(`${shown}: the folder holds no .prisma files; add the app's models there, or pass --schema`, shown)
  const files = await Promise.all(paths.map(async (file) => [toPosix(relative(appRoot, file)), await readFile(file, 'utf8')] as [string, string]))
  const datamodel = parseSchema(files, shown)
  const provider = datasourceProvider(files)
  return { files: files.map(([name]) => name), sources: files, datamodel, ...(provider !== undefined && { provider }) }
}

/** The `provider` of the schema's datasource block (the parser has validated there is at most one). */
export function datasourceProvider(files: [string, string][]): string | undefined {
  for (const [, text] of files) {
    const provider = /^datasource\s+\w+\s*\{[^}]*?\bprovider\s*=\s*"(\w+)"/m.exec(text)?.[1]
    if (provider !== undefined) return provider
  }
  return undefined
}

/** Parses `[path, text]` pairs; `shown` names the schema in errors. */
export function parseSchema(files: [string, string][], shown: string): Datamodel {
  let datamodel: string
  try {
    // The datamodel half of DMMF: the full DMMF adds a query schema (megabytes for a large
    // schema) that the generator never reads, and costs most of the parse.
    datamodel = wasm.get_datamodel(JSON.stringify({ prismaSchema: files, noColor: true }))
  } catch (error) {
    throw new GeneratorError(`${shown}: the Prisma schema does not validate; fix it, then generate again.\n${prismaMessage(error)}`, shown)
  }
  return withUnsupportedFields(JSON.parse(datamodel) as Datamodel, files)
}

/**
 * The datamodel leaves `Unsupported("…")` fields out, but a required one decides whether a row
 * can be created at all; they are read from the schema text into the model's fields.
 */
function withUnsupportedFields(datamodel: Datamodel, files: [string, string][]): Datamodel {
  const found = new Map<string, DmmfField[]>()
  for (const [, text] of files) {
    for (const [, model, body] of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
      for (const [, name, type, optional, rest] of (body ?? '').matchAll(/^[ \t]*(\w+)[ \t]+Unsupported\(\s*"([^"]*)"\s*\)(\?)?([^\n]*)/gm)) {
        const field: DmmfField = {
          name: name!,
          kind: 'unsupported',
          type: `Unsupported("${type}")`,
          isList: false,
          isRequired: optional === undefined,
          isUnique: false,
          isId: false,
          hasDefaultValue: /@default\(/.test(rest ?? ''),
          isUpdatedAt: false,
        }
        found.set(model!, [...(found.get(model!) ?? []), field])
      }
    }
  }
  for (const model of datamodel.models) model.fields.push(...(found.get(model.name) ?? []))
  return datamodel
}

// The parser throws an Error whose message is JSON: { error_code, message }.
function prismaMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  try {
    const parsed = JSON.parse(text) as { message?: unknown }
    if (typeof parsed.message === 'string') return parsed.message.trimEnd()
  } catch {
    // Not JSON: a parser crash rather than a schema error; show it as it is.
  }
  return text
}

async function prismaFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.prisma'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

const toPosix = (path: string) => path.split(sep).join('/')
