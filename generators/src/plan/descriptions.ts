/**
 * Tool descriptions: what the operation does, the entity's description, and (for reads) the
 * fields a row carries with their `///` documentation, since results are not in the input schema.
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'
import type { ResolvedEntity } from '../read/resolved.js'
import { keyNames } from './schemas.js'

export function toolDescription(entity: ResolvedEntity, operation: EntityOperation): string {
  const { name } = entity
  const id = keyNames(entity)
  const what = {
    list: `List the caller's ${name}, a page at a time, filtered by exact field values.`,
    get: `Get one of the caller's ${name} by ${id}.`,
    create: `Create one of the caller's ${name}; the caller owns it.`,
    update: `Update one of the caller's ${name} by ${id}; fields left out keep their values.`,
    delete: `Delete one of the caller's ${name} by ${id}.`,
  }[operation]
  const parts = [what]
  if (entity.description) parts.push(sentence(entity.description))
  if (operation === 'list' || operation === 'get') parts.push(`Fields: ${fieldList(entity)}.`)
  return parts.join(' ')
}

function fieldList(entity: ResolvedEntity): string {
  return entity.fields.map((field) => (field.documentation ? `${field.name} (${oneLine(field.documentation)})` : field.name)).join(', ')
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

function sentence(text: string): string {
  const line = oneLine(text)
  return /[.!?]$/.test(line) ? line : `${line}.`
}
