/**
 * The tool registry generated entity code plugs into. One tool per entity operation; MCP serves the
 * registry at /mcp and the derived `entity.<name>` skill calls the same tools in-process, so the two
 * surfaces cannot drift.
 * @module
 */
import type { Principal } from '../core/principal.js'
import type { EntityOperation } from './declarations.js'

/** A JSON Schema (draft 2020-12 subset) describing a tool's arguments object. */
export type JsonSchema = Record<string, unknown>

export interface ToolContext {
  principal: Principal
  signal?: AbortSignal
}

export interface EntityTool {
  /** `<entity>_<operation>`, or `<namespace>_<entity>_<operation>`. */
  name: string
  /** The declared entity name, e.g. `invoices`. */
  entity: string
  namespace?: string
  operation: EntityOperation
  description: string
  /**
   * The credential scopes that allow this tool: a scoped caller holding none of them neither sees
   * nor calls it (as for an unknown tool). Sessions are never limited. Unset: no scope check.
   */
  scopes?: readonly string[]
  /** The arguments object's schema; arguments are validated against it before `run`. */
  inputSchema: JsonSchema
  /** Runs as the caller; throws {@link ToolError} with text safe to show the caller. */
  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>
}

/** A refusal whose text reaches the caller (MCP `isError` result, A2A FAILED status). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ToolError'
  }
}
