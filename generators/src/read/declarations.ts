/**
 * Loads the app's entity declarations (`src/entities.ts`, `export default defineEntities({...})`)
 * by importing the TypeScript file itself through tsx: the declarations are plain data, so running
 * the file is the one reading of it that cannot disagree with the app.
 * @module
 */
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { tsImport } from 'tsx/esm/api'
import { GeneratorError } from '../errors.js'

const EXAMPLE = "export default defineEntities({ invoices: { model: 'Invoice', ownerField: 'userId' } })"

/**
 * The default export (or a named `entities` export) of `file`, relative to `appRoot`. Its shape
 * is checked by `validateEntities`; this only finds it.
 */
export async function loadDeclarations(appRoot: string, file = 'src/entities.ts'): Promise<unknown> {
  const path = join(appRoot, file)
  if (
    !(await access(path).then(
      () => true,
      () => false,
    ))
  ) {
    throw new GeneratorError(`${file}: not found; create it with \`${EXAMPLE}\`, or pass its path with --entities`, file)
  }
  let module: Record<string, unknown>
  try {
    module = (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new GeneratorError(`${file}: importing it failed; fix the error, then generate again.\n${reason}`, file)
  }
  // A file the app's package.json leaves CommonJS arrives wrapped: its exports sit on `default`.
  const exports = isRecord(module.default) && module.default.__esModule === true ? module.default : module
  const declarations = exports.default ?? exports.entities
  if (declarations === undefined) {
    throw new GeneratorError(`${file}: exports no entity declarations; add \`${EXAMPLE}\` (or a named \`entities\` export)`, file)
  }
  return declarations
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
