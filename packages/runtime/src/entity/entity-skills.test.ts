import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExchange } from '../exchange/exchange.js'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { entityMessage, mcpClient, testRegistry } from './notes-fixture.js'
import { createToolRegistry } from './tool-registry.js'

const card = { name: 'Notes', description: 'Notes agent', version: '1.2.3' }
const resolvePrincipal = () => ({ owner: 'alice' })
const statusText = (task: any): string => task.status.message?.parts?.[0]?.text

// The data-part contract over A2A: { skill, operation, arguments } in, one artifact out.
describe('entity skills', () => {
  let server: TestServer
  const send = async (data: unknown, options: { token?: string; metadata?: Record<string, unknown> } = {}) =>
    (await server.result('SendMessage', { message: entityMessage(data, options.metadata) }, options.token ? { token: options.token } : {})).task

  beforeAll(async () => {
    server = await startTestServer({ tools: testRegistry() })
  })
  afterAll(() => server.close())

  it('runs an operation and answers one artifact <entity>.<operation> with a data part', async () => {
    await send({ skill: 'entity.notes', operation: 'create', arguments: { title: 'Alice note' } })
    await send({ skill: 'entity.notes', operation: 'create', arguments: { title: 'From A2A' } }, { token: 'bob' })
    const task = await send({ skill: 'entity.notes', operation: 'list', arguments: { limit: 10 } }, { token: 'bob' })
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.artifacts).toHaveLength(1)
    expect(task.artifacts[0]).toMatchObject({ name: 'notes.list', parts: [{ mediaType: 'application/json', data: { page: 1, perPage: 10, total: 1 } }] })
    expect(task.artifacts[0].parts[0].data.data).toEqual([expect.objectContaining({ title: 'From A2A' })])
    // Each caller sees only their own rows: the skill calls the tools as the caller.
    const alices = await send({ skill: 'entity.notes', operation: 'list' })
    expect(alices.artifacts[0].parts[0].data.data.map((note: any) => note.title)).toEqual(['Alice note'])
  })

  it('takes the first object data part when routed by metadata.skill, and serves namespaced entities', async () => {
    const task = await send({ operation: 'list' }, { metadata: { skill: 'entity.billing.invoices' } })
    expect(task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(task.artifacts[0]).toMatchObject({ name: 'invoices.list', parts: [{ data: { data: [{ id: 'inv-alice' }] } }] })
  })

  it('rejects an unknown or missing operation, naming the operations', async () => {
    const unknown = await send({ skill: 'entity.notes', operation: 'purge' })
    expect(unknown.status.state).toBe('TASK_STATE_REJECTED')
    expect(statusText(unknown)).toBe('unknown operation "purge"; operations: list, get, create, update, delete')
    const namespaced = await send({ skill: 'entity.billing.invoices', operation: 'delete', arguments: { id: 'x' } })
    expect(statusText(namespaced)).toBe('unknown operation "delete"; operations: list, get')
    const missing = await send({ skill: 'entity.notes', arguments: {} })
    expect(missing.status.state).toBe('TASK_STATE_REJECTED')
    expect(statusText(missing)).toMatch(/^operation is missing.*operations: list, get, create, update, delete$/)
  })

  it('rejects arguments that are not an object', async () => {
    for (const args of [[1], 'limit=1', null]) {
      const task = await send({ skill: 'entity.notes', operation: 'list', arguments: args })
      expect(task.status.state).toBe('TASK_STATE_REJECTED')
      expect(statusText(task)).toMatch(/^arguments must be an object/)
    }
  })

  it("fails the task with the tool's refusal text", async () => {
    const missing = await send({ skill: 'entity.notes', operation: 'get', arguments: { id: 'n404' } })
    expect(missing.status.state).toBe('TASK_STATE_FAILED')
    expect(statusText(missing)).toBe('note n404 not found')
    const invalid = await send({ skill: 'entity.notes', operation: 'list', arguments: { limit: 0 } })
    expect(statusText(invalid)).toBe('invalid arguments for notes_list: limit must be >= 1')
  })

  it('lists the entity skills on the card with JSON modes and one description line per operation', async () => {
    const cardJson: any = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()
    const notes = cardJson.skills.find((s: any) => s.id === 'entity.notes')
    expect(notes).toMatchObject({ name: 'Notes', tags: ['entity', 'notes'], inputModes: ['application/json'], outputModes: ['application/json'] })
    const [first, ...lines] = notes.description.split('\n')
    expect(first).toMatch(/notes records.*skill, operation and arguments:$/)
    expect(lines).toEqual([
      'list(page, limit, sort, done, title, body, ...)',
      'get(id)',
      'create(title, body, done, due_at)',
      'update(id, title, body, done, due_at)',
      'delete(id)',
    ])
    expect(cardJson.skills.map((s: any) => s.id)).toEqual(['entity.notes', 'entity.billing.invoices', 'entity.secrets'])
    expect(cardJson.skills[1]).toMatchObject({ name: 'Invoices (billing)', description: expect.stringContaining('\nlist(page)\nget(id)') })
  })
})

describe('exchange options for tools', () => {
  const echo = defineSkill({ id: 'echo', description: 'echo', handler: () => {} })

  it('drops the entity skills with disableEntitySkills, and still serves MCP', async () => {
    const server = await startTestServer({ skills: [echo], tools: testRegistry(), disableEntitySkills: true })
    try {
      const cardJson: any = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()
      expect(cardJson.skills.map((s: any) => s.id)).toEqual(['echo'])
      const { task } = await server.result('SendMessage', { message: entityMessage({ skill: 'entity.notes', operation: 'list' }) })
      expect(task.status.state).toBe('TASK_STATE_REJECTED')
      const client: Client = await mcpClient(new URL(`${server.url}/mcp`), { Authorization: 'Bearer alice' })
      expect((await client.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy()
      await client.close()
    } finally {
      await server.close()
    }
  })

  it('needs a skill overall, refuses clashing ids, and exposes the registry', () => {
    expect(() => createExchange({ card, resolvePrincipal, skills: [] })).toThrow(/at least one skill/)
    expect(() => createExchange({ card, resolvePrincipal, tools: testRegistry(), disableEntitySkills: true })).toThrow(/at least one skill/)
    expect(() => createExchange({ card, resolvePrincipal, tools: createToolRegistry([]) })).toThrow(/at least one skill/)
    const clash = defineSkill({ id: 'entity.notes', description: 'mine', handler: () => {} })
    expect(() => createExchange({ card, resolvePrincipal, skills: [clash], tools: testRegistry() })).toThrow(/"entity.notes" is also the derived skill/)
    const tools = testRegistry()
    const exchange = createExchange({ card, resolvePrincipal, tools })
    expect(exchange.tools).toBe(tools)
    expect(exchange.mcpHandler()).toBe(exchange.mcpHandler())
    expect(createExchange({ card, resolvePrincipal, skills: [echo] }).mcpHandler()).toBeUndefined()
  })
})
