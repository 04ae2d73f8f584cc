/**
 * The tool registry: one place that validates arguments, gates tools per caller and turns
 * failures into text the caller may see. MCP and the entity skills both call through it.
 * @module
 */
import { createRequire } from 'node:module'
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js'
import type { Principal } from '../core/principal.js'
import { consoleLogger, scrub, type Logger } from '../log/logger.js'
import { isDateTime } from './date-time.js'
import { ENTITY_OPERATIONS } from './declarations.js'
import { ToolError, type EntityTool, type ToolContext } from './entity-tool.js'

export interface ToolRegistryOptions {
  /** Hides a tool from a caller; a hidden tool is refused exactly like an unknown one. Default: all enabled. */
  isEnabled?: (tool: EntityTool, principal: Principal) => boolean
  logger?: Logger
}

export interface ToolRegistry {
  /** Every registered tool, in registration order. */
  readonly tools: readonly EntityTool[]
  /** The tools this caller may use, in registration order. */
  list(principal: Principal): EntityTool[]
  /** Validates `args` and runs the tool as `context.principal`; every refusal is a {@link ToolError}. */
  call(name: string, args: unknown, context: ToolContext): Promise<unknown>
}

// ajv (CommonJS, ~10 MiB once loaded) is required by the first registry, not by the runtime's
// import: an app without entity tools never loads it.
const require = createRequire(import.meta.url)
const loadAjv = (): typeof Ajv2020 => (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020

// The MCP tool-name alphabet (SEP-986), so every registered tool is also a valid MCP tool.
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

export function createToolRegistry(tools: EntityTool[], options: ToolRegistryOptions = {}): ToolRegistry {
  const logger = options.logger ?? consoleLogger
  const isEnabled = options.isEnabled ?? (() => true)
  const ajv = new (loadAjv())({
    useDefaults: true,
    allErrors: false,
    // Annotation keywords other tools read (json-schema-to-typescript's tsType, x-*) must not stop startup.
    strict: false,
    logger: {
      log: () => {},
      warn: (...parts: unknown[]) => logger.warn(`a2a: tool schema: ${scrub(parts.join(' '))}`),
      error: (...parts: unknown[]) => logger.error(`a2a: tool schema: ${scrub(parts.join(' '))}`),
    },
  })
  ajv.addFormat('date-time', isDateTime)
  // A @db.Uuid column refuses anything else, so the schema says so (RFC 9562's textual form).
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)

  const byName = new Map<string, { tool: EntityTool; validate: ValidateFunction }>()
  for (const tool of tools) {
    checkTool(tool)
    if (byName.has(tool.name)) throw new Error(`Two tools share the name "${tool.name}"; tool names must be unique`)
    byName.set(tool.name, { tool, validate: compile(ajv, tool) })
  }

  const enabledFor = (tool: EntityTool, principal: Principal): boolean => {
    if (!scopesAllow(tool, principal)) return false
    try {
      return isEnabled(tool, principal) === true
    } catch (error) {
      logger.error(`a2a: isEnabled threw for tool ${tool.name}: ${scrub(error)}`)
      return false
    }
  }

  return {
    tools: Object.freeze([...tools]),
    list: (principal) => tools.filter((tool) => enabledFor(tool, principal)),
    async call(name, args, context) {
      const entry = typeof name === 'string' ? byName.get(name) : undefined
      // One refusal for unknown and hidden tools, so a caller cannot probe which tools exist.
      if (!entry || !enabledFor(entry.tool, context.principal)) throw new ToolError(`tool unavailable: ${scrub(name, 128)}`)
      const { tool, validate } = entry
      if (!isPlainObject(args)) throw new ToolError(`invalid arguments for ${tool.name}: arguments must be an object`)
      let input: Record<string, unknown>
      try {
        // Defaults are written into the arguments; copy so the caller's object stays as it was.
        input = structuredClone(args)
      } catch {
        throw new ToolError(`invalid arguments for ${tool.name}: arguments must be plain JSON`)
      }
      if (!validate(input)) throw new ToolError(`invalid arguments for ${tool.name}: ${describeError(validate.errors?.[0])}`)
      try {
        return await tool.run(input, context)
      } catch (error) {
        if (error instanceof ToolError) throw error
        // A cut run (cancel, timeout) is expected; only unexpected failures are worth a line.
        if (!context.signal?.aborted) logger.error(`a2a: tool ${tool.name} failed: ${scrub(error)}`)
        throw new ToolError(`${tool.name} failed`)
      }
    },
  }
}

/** A session (no scopes) may use every tool; a scoped caller needs one of the tool's scopes. */
function scopesAllow(tool: EntityTool, principal: Principal): boolean {
  if (principal.scopes === undefined || tool.scopes === undefined) return true
  return principal.scopes.some((scope) => tool.scopes!.includes(scope))
}

function checkTool(tool: EntityTool): void {
  const label = JSON.stringify(tool?.name)
  if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    throw new Error(`Tool name ${label} must be 1-128 letters, digits, "_", "-" or "."`)
  }
  if (typeof tool.run !== 'function') throw new Error(`Tool ${label} has no run function`)
  if (typeof tool.entity !== 'string' || tool.entity === '') throw new Error(`Tool ${label} names no entity`)
  if (tool.scopes !== undefined && !(Array.isArray(tool.scopes) && tool.scopes.every((scope) => typeof scope === 'string'))) {
    throw new Error(`Tool ${label} has scopes that are not a list of scope names`)
  }
  if (!(ENTITY_OPERATIONS as readonly string[]).includes(tool.operation)) {
    throw new Error(`Tool ${label} has operation ${JSON.stringify(tool.operation)}; expected one of ${ENTITY_OPERATIONS.join(', ')}`)
  }
  if (!isPlainObject(tool.inputSchema) || tool.inputSchema.type !== 'object') {
    throw new Error(`Tool ${label} needs an inputSchema of type "object": MCP callers send an arguments object`)
  }
}

function compile(ajv: Ajv2020, tool: EntityTool): ValidateFunction {
  // The subset entity tools use reads the same under draft-07 and 2020-12; a draft-07 `$schema`
  // (as zod-to-json-schema writes) would otherwise make a 2020-12 validator refuse the schema.
  const { $schema: _ignored, ...schema } = tool.inputSchema
  try {
    return ajv.compile(schema)
  } catch (error) {
    throw new Error(`Tool "${tool.name}" has an invalid inputSchema: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** `title must be string`, `tags.1 must be string`, `title is required`: the field first, then why. */
function describeError(error: ErrorObject | undefined): string {
  if (!error) return 'arguments do not match the schema'
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
  const field = (extra?: unknown) => scrub([...path, ...(typeof extra === 'string' ? [extra] : [])].join('.') || 'arguments', 128)
  if (error.keyword === 'required') return `${field(error.params.missingProperty)} is required`
  if (error.keyword === 'additionalProperties') return `${field(error.params.additionalProperty)} is not an accepted argument`
  if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) {
    return `${field()} must be one of: ${scrub(error.params.allowedValues.map((v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', '), 300)}`
  }
  return `${field()} ${error.message ?? 'is invalid'}`
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
