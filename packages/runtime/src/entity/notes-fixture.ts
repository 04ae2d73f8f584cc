/**
 * A hand-written entity tool set for the entity tests: notes kept in memory per owner, shaped the
 * way generated tools are (owner from the principal, list pages, "not found" across owners), plus a
 * namespaced entity, a gated one and one whose tool crashes; plus the MCP client and message helpers
 * the tests share. Not exported from the package.
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Principal } from '../core/principal.js'
import { ToolError, type EntityTool, type JsonSchema } from './entity-tool.js'
import { createToolRegistry, type ToolRegistry } from './tool-registry.js'

export interface Note {
  id: string
  title: string
  body: string | null
  done: boolean
  due_at: string | null
}

const writable = {
  title: { type: 'string', minLength: 1, description: 'What the note is about' },
  body: { type: ['string', 'null'] },
  done: { type: 'boolean' },
  due_at: { type: ['string', 'null'], format: 'date-time' },
}
const object = (properties: Record<string, unknown>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
})
const byId = object({ id: { type: 'string' } }, ['id'])

export function notesTools(): EntityTool[] {
  const owners = new Map<string, Map<string, Note>>()
  let counter = 0
  const rowsOf = (principal: Principal) => {
    let rows = owners.get(principal.owner)
    if (!rows) owners.set(principal.owner, (rows = new Map()))
    return rows
  }
  const find = (principal: Principal, id: unknown) => {
    const row = rowsOf(principal).get(String(id))
    if (!row) throw new ToolError(`note ${String(id)} not found`)
    return row
  }
  const tool = (operation: EntityTool['operation'], inputSchema: JsonSchema, run: EntityTool['run']): EntityTool => ({
    name: `notes_${operation}`,
    entity: 'notes',
    operation,
    description: `${operation} the caller's notes`,
    inputSchema,
    run,
  })
  return [
    tool(
      'list',
      object({
        page: { type: 'integer', minimum: 1, default: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        sort: { enum: ['title', '-title'] },
        done: { type: 'boolean' },
        title: { type: 'string' },
        body: { type: 'string' },
        due_at: { type: 'string', format: 'date-time' },
      }),
      async (args, { principal }) => {
        const page = args.page as number
        const perPage = args.limit as number
        const all = [...rowsOf(principal).values()].filter((row) => args.done === undefined || row.done === args.done)
        if (args.sort) all.sort((a, b) => a.title.localeCompare(b.title) * (args.sort === '-title' ? -1 : 1))
        const data = all.slice((page - 1) * perPage, page * perPage)
        return { data, page, perPage, total: all.length, totalPages: Math.ceil(all.length / perPage) }
      },
    ),
    tool('get', byId, async (args, { principal }) => find(principal, args.id)),
    tool('create', object(writable, ['title']), async (args, { principal }) => {
      const note: Note = { id: `n${++counter}`, title: args.title as string, body: null, done: false, due_at: null, ...args }
      rowsOf(principal).set(note.id, note)
      return note
    }),
    tool('update', object({ id: { type: 'string' }, ...writable }, ['id']), async (args, { principal }) => {
      const note = { ...find(principal, args.id), ...args }
      rowsOf(principal).set(note.id, note)
      return note
    }),
    tool('delete', byId, async (args, { principal }) => {
      rowsOf(principal).delete(find(principal, args.id).id)
      return { id: args.id, deleted: true }
    }),
  ]
}

/** `billing_invoices_list` / `_get` under the `billing` namespace. */
export function invoiceTools(): EntityTool[] {
  const base = { entity: 'invoices', namespace: 'billing' }
  return [
    {
      ...base,
      name: 'billing_invoices_list',
      operation: 'list',
      description: "List the caller's invoices",
      inputSchema: object({ page: { type: 'integer', default: 1 } }),
      run: async (_args, { principal }) => ({ data: [{ id: `inv-${principal.owner}` }] }),
    },
    {
      ...base,
      name: 'billing_invoices_get',
      operation: 'get',
      description: 'Get one invoice',
      inputSchema: byId,
      run: async (args) => ({ id: args.id }),
    },
  ]
}

/** An entity the tests disable through isEnabled. */
export const secretTool: EntityTool = {
  name: 'secrets_list',
  entity: 'secrets',
  operation: 'list',
  description: 'List secrets',
  inputSchema: object({}),
  run: async () => ({ data: ['the secret'] }),
}

/** A tool whose run fails with an unexpected error carrying a forged log line. */
export const crashingTool: EntityTool = {
  name: 'crashes_list',
  entity: 'crashes',
  operation: 'list',
  description: 'Always fails',
  inputSchema: object({}),
  run: async () => {
    throw new Error('db down\nERROR forged line')
  },
}

/** Notes, billing invoices, and secrets disabled for everyone. */
export const testRegistry = (): ToolRegistry => createToolRegistry([...notesTools(), ...invoiceTools(), secretTool], { isEnabled: (tool) => tool.entity !== 'secrets' })

/** The official MCP SDK client, connected over Streamable HTTP with these request headers. */
export async function mcpClient(url: URL, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'entity-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  return client
}

let messageCounter = 0

/** A user message holding one data part. */
export const entityMessage = (data: unknown, metadata?: Record<string, unknown>): Record<string, unknown> => ({
  messageId: `entity-${process.pid}-${++messageCounter}`,
  role: 'ROLE_USER',
  parts: [{ data }],
  ...(metadata ? { metadata } : {}),
})
