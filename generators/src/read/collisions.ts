/**
 * Names two entities must not share: tool names, skill ids, generated file names and code
 * identifiers, compared without case (file systems and readers both confuse them).
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'
import { camelCase, fileStem, skillId, toolName } from '../names.js'

export interface EntityNames {
  name: string
  namespace?: string
  operations: EntityOperation[]
}

// File stems the plan uses for files that are not an entity's.
const RESERVED_STEMS = new Map([
  ['entities', 'src/a2a/entities.gen.ts'],
  ['refusals', 'src/a2a/refusals.gen.ts'],
])

export function checkCollisions(entities: EntityNames[], report: (entity: string, text: string) => void): void {
  const owners = new Map<string, string>()
  const reported = new Set<string>()
  // One line per pair of entities: the first name they share says enough.
  const claim = (entity: string, key: string, text: string) => {
    const other = owners.get(key.toLowerCase())
    if (other === undefined) return void owners.set(key.toLowerCase(), entity)
    if (other === entity || reported.has(`${other} ${entity}`)) return
    reported.add(`${other} ${entity}`)
    report(entity, `"${other}" already has ${text}; rename one of the two entities${key.startsWith('tool:') || key.startsWith('skill:') ? ' or give one another namespace' : ''}`)
  }
  for (const { name, namespace, operations } of entities) {
    const stem = fileStem(name)
    const reserved = RESERVED_STEMS.get(stem)
    if (reserved) report(name, `its files would be named like ${reserved}, which the generator writes for itself; rename the entity`)
    for (const operation of operations) {
      const tool = toolName(name, operation, namespace)
      claim(name, `tool:${tool}`, `the tool name ${tool}`)
    }
    claim(name, `skill:${skillId(name, namespace)}`, `the skill id ${skillId(name, namespace)}`)
    claim(name, `file:${stem}`, `the generated file name ${stem}.gen.ts`)
    claim(name, `code:${camelCase(name)}`, `the generated function name ${camelCase(name)}Tools`)
  }
}
