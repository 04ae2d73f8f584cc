/**
 * The one schema walk: per entity and operation, the JSON Schema of the tool's arguments. The
 * same objects become the MCP `inputSchema`, the TypeScript input types and the skill description.
 * @module
 */
import type { EntityOperation, JsonSchema } from '@a2a-agent/runtime'
import { isComparable } from '../read/field-schema.js'
import type { ResolvedEntity, ResolvedField } from '../read/resolved.js'
import { listOf } from '../names.js'

export const PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

export function operationSchema(entity: ResolvedEntity, operation: EntityOperation): JsonSchema {
  switch (operation) {
    case 'list': {
      const fields = filterable(entity)
      const sort = {
        type: 'string',
        enum: fields.flatMap((field) => [field.name, `-${field.name}`]),
        description: `Field to sort by, with a leading "-" for descending order. Default: ${keyNames(entity)}.`,
      }
      return object({
        page: { type: 'integer', minimum: 1, default: 1, description: 'Page number, from 1.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: PAGE_SIZE, description: `Rows per page, at most ${MAX_PAGE_SIZE}.` },
        ...(fields.length > 0 ? { sort } : {}),
        ...properties(fields, (field) => field.schema),
      })
    }
    case 'get':
    case 'delete':
      return object(
        properties(entity.key, (field) => field.schema),
        entity.key.map((field) => field.name),
      )
    case 'create':
      return object(
        properties(entity.writable, createSchema),
        entity.writable.filter(isRequiredOnCreate).map((field) => field.name),
      )
    case 'update':
      return object(
        { ...properties(entity.key, (field) => field.schema), ...properties(updatable(entity), (field) => field.schema) },
        entity.key.map((field) => field.name),
      )
  }
}

/** The fields naming one row, as prose: `id`, or `projectId and slot`. */
export const keyNames = (entity: ResolvedEntity): string => {
  return entity.key.length > 0 ? listOf(entity.key.map((field) => field.name)) : entity.id.name
}

/** Visible fields a list can filter and sort by: not the owner or tenant, whose values are fixed. */
export function filterable(entity: ResolvedEntity): ResolvedField[] {
  return entity.fields.filter((field) => isComparable(field) && field !== entity.owner && field !== entity.tenant)
}

/** The fields an update may change: the create fields but the id, which addresses the row. */
export const updatable = (entity: ResolvedEntity): ResolvedField[] => entity.writable.filter((field) => !field.isId)

export const isRequiredOnCreate = (field: ResolvedField): boolean => field.isRequired && !field.hasDefault && !field.isList

// A create states the column's literal default, so agents see what they get when leaving it out.
function createSchema(field: ResolvedField): JsonSchema {
  if (field.default === undefined) return field.schema
  const { description, ...schema } = field.schema
  return { ...schema, default: field.default, ...(description === undefined ? {} : { description }) }
}

function properties(fields: ResolvedField[], schemaOf: (field: ResolvedField) => JsonSchema): Record<string, JsonSchema> {
  return Object.fromEntries(fields.map((field) => [field.name, schemaOf(field)]))
}

function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false }
}
