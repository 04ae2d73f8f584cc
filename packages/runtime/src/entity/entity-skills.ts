/**
 * Derived entity skills: one A2A skill per entity, `entity.<name>` (`entity.<ns>.<name>`), whose
 * handler calls the same registry tools MCP serves. The description is generated from the tools'
 * input schemas, so it cannot drift from what the tools accept.
 * @module
 */
import type { Principal } from '../core/principal.js'
import { scrub } from '../log/logger.js'
import type { Skill } from '../skills/skill.js'
import type { Message } from '../wire/types.js'
import { ENTITY_OPERATIONS, type EntityOperation } from './declarations.js'
import { ToolError, type EntityTool } from './entity-tool.js'
import type { ToolRegistry } from './tool-registry.js'

const MODES = ['application/json']
// Keys shown per operation line before "..."; the tool's schema (tools/list) has the rest.
const MAX_KEYS = 6

interface EntityGroup {
  id: string
  entity: string
  namespace: string | undefined
  tools: Map<EntityOperation, EntityTool>
}

export function entitySkills(registry: ToolRegistry): Skill[] {
  return groupByEntity(registry.tools).map((group) => entitySkill(registry, group))
}

/**
 * Each entity skill's description as `principal` may use it: only the operations its scopes allow,
 * and undefined for a skill it may call nothing of. What a per-caller card lists.
 */
export function entitySkillDescriptions(registry: ToolRegistry, principal: Principal): Map<string, string | undefined> {
  const callable = new Map(groupByEntity(registry.list(principal)).map((group) => [group.id, describe(group)]))
  return new Map(groupByEntity(registry.tools).map((group) => [group.id, callable.get(group.id)]))
}

/** The skill id serving an entity's tools. */
export const entitySkillId = (entity: string, namespace?: string): string => (namespace ? `entity.${namespace}.${entity}` : `entity.${entity}`)

function groupByEntity(tools: readonly EntityTool[]): EntityGroup[] {
  const groups = new Map<string, EntityGroup>()
  for (const tool of tools) {
    const id = entitySkillId(tool.entity, tool.namespace)
    let group = groups.get(id)
    if (!group) groups.set(id, (group = { id, entity: tool.entity, namespace: tool.namespace || undefined, tools: new Map() }))
    const taken = group.tools.get(tool.operation)
    if (taken) throw new Error(`Tools "${taken.name}" and "${tool.name}" both serve ${tool.operation} on ${id}; one tool per entity operation`)
    group.tools.set(tool.operation, tool)
  }
  // Operations in their canonical order, whatever order the tools were registered in.
  for (const group of groups.values()) {
    group.tools = new Map(ENTITY_OPERATIONS.flatMap((op) => (group.tools.has(op) ? [[op, group.tools.get(op)!] as const] : [])))
  }
  return [...groups.values()]
}

function entitySkill(registry: ToolRegistry, group: EntityGroup): Skill {
  const title = group.entity.charAt(0).toUpperCase() + group.entity.slice(1).replace(/[_-]+/g, ' ')
  return {
    id: group.id,
    name: group.namespace ? `${title} (${group.namespace})` : title,
    description: describe(group),
    tags: ['entity', group.entity],
    inputModes: MODES,
    outputModes: MODES,
    handler: async (ctx) => {
      // Only what this caller may call is named; calling another is refused as MCP refuses it.
      const callable = new Set(registry.list(ctx.principal))
      const operations =
        [...group.tools]
          .filter(([, tool]) => callable.has(tool))
          .map(([op]) => op)
          .join(', ') || 'none for this credential'
      const request = requestPart(ctx.message, group.id)
      const operation = request?.operation
      if (operation === undefined) {
        return ctx.reject(`operation is missing: send one data part with skill, operation and arguments; operations: ${operations}`)
      }
      const tool = typeof operation === 'string' ? group.tools.get(operation as EntityOperation) : undefined
      if (!tool) return ctx.reject(`unknown operation ${scrub(JSON.stringify(operation), 100)}; operations: ${operations}`)
      const args = request?.arguments === undefined ? {} : request.arguments
      if (!isPlainObject(args)) {
        return ctx.reject(`arguments must be an object holding the ${tool.operation} parameters, not ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args}`)
      }
      let result: unknown
      try {
        result = await registry.call(tool.name, args, { principal: ctx.principal, signal: ctx.signal })
      } catch (error) {
        if (error instanceof ToolError) return ctx.fail(error.message)
        throw error
      }
      await ctx.artifact({ name: `${group.entity}.${tool.operation}`, parts: [{ data: result ?? null, mediaType: 'application/json' }] })
      await ctx.complete()
    },
  }
}

function describe(group: EntityGroup): string {
  const lines = [...group.tools].map(([operation, tool]) => {
    const properties = tool.inputSchema.properties
    const keys = isPlainObject(properties) ? Object.keys(properties) : []
    const shown = keys.length > MAX_KEYS ? [...keys.slice(0, MAX_KEYS), '...'] : keys
    return `${operation}(${shown.join(', ')})`
  })
  return [
    `Reads and writes the caller's ${group.entity} records through the app's entity tools, as MCP serves them. Send one data part holding skill, operation and arguments:`,
    ...lines,
  ].join('\n')
}

/**
 * The data part addressed to this skill: the first one whose `skill` names it, else (routed by
 * metadata.skill, or as the only skill) the first object data part naming no skill.
 */
function requestPart(message: Message, skillId: string): Record<string, unknown> | undefined {
  const objects = message.parts.flatMap((part) => ('data' in part && isPlainObject(part.data) ? [part.data] : []))
  return objects.find((data) => data.skill === skillId) ?? objects.find((data) => data.skill === undefined)
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
