/**
 * The app's `.env` file. The app, the `a2a` commands and prisma.config.ts each load it, so
 * `npm run dev`, `npx prisma migrate dev` and `npx a2a keys create` see the same settings.
 * @module
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * Loads `path` (default `.env` in the working folder) into process.env when the file exists, with
 * Node's own parser. A variable already set, even to an empty string, keeps its value, as with
 * `node --env-file`. Returns whether a file was loaded.
 */
export function loadDotEnv(path = '.env'): boolean {
  const file = resolve(path)
  if (!existsSync(file)) return false
  process.loadEnvFile(file)
  return true
}
