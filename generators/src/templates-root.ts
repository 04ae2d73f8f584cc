/**
 * Where the templates are: `templates/` of the create-a2a-agent package when it ships them (its
 * build copies them next to the bundled CLI in `dist/`), else the repository root's. Found by
 * walking up from this module, so the same code works from `generators/src/` and from the bundle.
 * @module
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// dist/ → package → packages/ → repository root is the longest way; never wander further up.
const MAX_LEVELS = 4
let found: string | undefined

/** The templates folder (with `app/` and `entity/`), ending in a separator. */
export function templatesRoot(): string {
  if (found) return found
  let folder = new URL('./', import.meta.url)
  for (let level = 0; level < MAX_LEVELS; level++, folder = new URL('../', folder)) {
    const candidate = new URL('templates/', folder)
    if (existsSync(new URL('entity/', candidate)) && existsSync(new URL('app/', candidate))) return (found = fileURLToPath(candidate))
  }
  throw new Error(`no templates/ folder with app/ and entity/ above ${fileURLToPath(import.meta.url)}`)
}
