import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../testing/test-server.js'
import { entityMessage, mcpClient, notesTools } from './notes-fixture.js'
import { createToolRegistry } from './tool-registry.js'

// Scopes reach entity data: a narrowed credential sees and calls only the tools its scopes allow,
// over MCP and through the entity skill alike; a session keeps every tool.
const READ = ['list', 'get']
const scopedNotes = () => createToolRegistry(notesTools().map((tool) => ({ ...tool, scopes: READ.includes(tool.operation) ? ['notes:read', 'notes:write'] : ['notes:write'] })))

describe('entity tools under credential scopes', () => {
  let server: TestServer
  const clients: Client[] = []
  const connect = async (token: string) => {
    const client = await mcpClient(new URL(`${server.url}/mcp`), { Authorization: `Bearer ${token}` })
    clients.push(client)
    return client
  }
  const send = async (data: unknown, token: string) => (await server.result('SendMessage', { message: entityMessage(data) }, { token })).task

  beforeAll(async () => {
    server = await startTestServer({
      tools: scopedNotes(),
      tokens: {
        alice: { owner: 'alice' },
        reader: { owner: 'alice', scopes: ['notes:read'] },
        writer: { owner: 'alice', scopes: ['notes:write'] },
        stranger: { owner: 'alice', scopes: ['billing:read'] },
      },
      extendedCard: () => [],
    })
  })
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()))
    await server.close()
  })

  it('lists only the tools a scoped caller may call; a session lists them all', async () => {
    const names = async (token: string) => (await (await connect(token)).listTools()).tools.map((tool) => tool.name)
    expect(await names('alice')).toEqual(['notes_list', 'notes_get', 'notes_create', 'notes_update', 'notes_delete'])
    expect(await names('reader')).toEqual(['notes_list', 'notes_get'])
    expect(await names('writer')).toEqual(['notes_list', 'notes_get', 'notes_create', 'notes_update', 'notes_delete'])
    expect(await names('stranger')).toEqual([])
  })

  it('refuses a tool outside the scopes with the same text as an unknown tool', async () => {
    const reader = await connect('reader')
    const refused = await reader.callTool({ name: 'notes_create', arguments: { title: 'x' } })
    const unknown = await reader.callTool({ name: 'notes_purge', arguments: {} })
    expect(refused).toMatchObject({ isError: true, content: [{ text: 'tool unavailable: notes_create' }] })
    expect(unknown).toMatchObject({ isError: true, content: [{ text: 'tool unavailable: notes_purge' }] })
    const writer = await connect('writer')
    expect((await writer.callTool({ name: 'notes_create', arguments: { title: 'by the writer' } })).isError).toBeFalsy()
    expect((await reader.callTool({ name: 'notes_list', arguments: {} })).structuredContent).toMatchObject({ data: [{ title: 'by the writer' }] })
  })

  it('names only the callable operations through the entity skill, and refuses the others as MCP does', async () => {
    const refused = await send({ skill: 'entity.notes', operation: 'delete', arguments: { id: 'n1' } }, 'reader')
    expect(refused.status.state).toBe('TASK_STATE_FAILED')
    expect(refused.status.message.parts[0].text).toBe('tool unavailable: notes_delete')
    const unknown = await send({ skill: 'entity.notes', operation: 'purge' }, 'reader')
    expect(unknown.status.message.parts[0].text).toBe('unknown operation "purge"; operations: list, get')
    const none = await send({ skill: 'entity.notes' }, 'stranger')
    expect(none.status.message.parts[0].text).toMatch(/^operation is missing.*; operations: none for this credential$/)
    expect((await send({ skill: 'entity.notes', operation: 'list' }, 'reader')).status.state).toBe('TASK_STATE_COMPLETED')
  })

  it("describes the entity skill on the caller's extended card with only what it may call", async () => {
    const skillFor = async (token: string) => (await server.result('GetExtendedAgentCard', {}, { token })).skills.find((skill: any) => skill.id === 'entity.notes')
    expect((await skillFor('alice')).description.split('\n').slice(1)).toEqual([
      'list(page, limit, sort, done, title, body, ...)',
      'get(id)',
      'create(title, body, done, due_at)',
      'update(id, title, body, done, due_at)',
      'delete(id)',
    ])
    expect((await skillFor('reader')).description.split('\n').slice(1)).toEqual(['list(page, limit, sort, done, title, body, ...)', 'get(id)'])
    expect(await skillFor('stranger')).toBeUndefined()
  })
})
