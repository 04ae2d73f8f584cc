/**
 * The Handlebars templates under `templates/entity/` (see `templates-root.ts`): real files that read
 * like the code they produce. Field-level fragments are worked out in TypeScript and handed in
 * ready-made, so the templates hold layout and wording, not logic.
 * @module
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Handlebars from 'handlebars'
import { templatesRoot } from '../templates-root.js'

const cache = new Map<string, Handlebars.TemplateDelegate>()

/** Renders `templates/entity/<name>.hbs`. Output is code, so nothing is HTML-escaped; a missing value throws. */
export function render(name: string, view: object): string {
  let template = cache.get(name)
  if (!template) {
    const source = readFileSync(join(templatesRoot(), 'entity', `${name}.hbs`), 'utf8')
    template = Handlebars.compile(source, { noEscape: true, strict: true })
    cache.set(name, template)
  }
  return template(view)
}
