/**
 * Every name the generator derives from a declaration, in one place so validation checks for
 * collisions with exactly the names the plan will use.
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'

/** `invoiceLines` → invoice, lines; `crm_notes` → crm, notes; `A2ATask` → a2a, task. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z0-9]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase())
}

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

export const camelCase = (name: string): string =>
  words(name)
    .map((word, index) => (index === 0 ? word : capital(word)))
    .join('')
export const pascalCase = (name: string): string => words(name).map(capital).join('')
export const kebabCase = (name: string): string => words(name).join('-')

/** Names as prose: `a`, `a and b`, `a, b and c`. */
export const listOf = (names: readonly string[]): string => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? ''))

/** The Prisma client property of a model: its name with a lower-case first letter. */
export const delegateOf = (model: string): string => model.charAt(0).toLowerCase() + model.slice(1)

export const toolName = (entity: string, operation: EntityOperation, namespace?: string): string => (namespace ? `${namespace}_${entity}_${operation}` : `${entity}_${operation}`)

/** The runtime's `entitySkillId`. */
export const skillId = (entity: string, namespace?: string): string => (namespace ? `entity.${namespace}.${entity}` : `entity.${entity}`)

/** The file stem of an entity's generated files: `src/a2a/<stem>.gen.ts`. */
export const fileStem = (entity: string): string => kebabCase(entity)
