import { describe, expect, it, vi } from 'vitest'
import { isDateTime } from './date-time.js'
import { ToolError, type EntityTool } from './entity-tool.js'
import { crashingTool, notesTools, secretTool } from './notes-fixture.js'
import { createToolRegistry } from './tool-registry.js'

const alice = { principal: { owner: 'alice' } }
const capture = () => {
  const lines: string[] = []
  return { lines, logger: { warn: (line: string) => lines.push(line), error: (line: string) => lines.push(line) } }
}
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a ToolError'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(ToolError)
      return (error as ToolError).message
    },
  )

describe('createToolRegistry', () => {
  it('refuses duplicate names, malformed tools and invalid schemas at creation', () => {
    const [list] = notesTools()
    expect(() => createToolRegistry([list!, { ...list! }])).toThrow('Two tools share the name "notes_list"')
    expect(() => createToolRegistry([{ ...list!, name: 'has space' }])).toThrow(/Tool name "has space"/)
    expect(() => createToolRegistry([{ ...list!, operation: 'purge' as EntityTool['operation'] }])).toThrow(/operation "purge"/)
    expect(() => createToolRegistry([{ ...list!, inputSchema: { type: 'array' } }])).toThrow(/inputSchema of type "object"/)
    expect(() => createToolRegistry([{ ...list!, inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } }])).toThrow(/notes_list" has an invalid inputSchema/)
  })

  it("applies schema defaults to a copy, leaving the caller's arguments as they were", async () => {
    const registry = createToolRegistry(notesTools())
    const args = { sort: 'title' }
    await expect(registry.call('notes_list', args, alice)).resolves.toMatchObject({ page: 1, perPage: 20 })
    expect(args).toEqual({ sort: 'title' })
  })

  it('names the field and the reason when arguments do not match', async () => {
    const registry = createToolRegistry(notesTools())
    const cases: [string, unknown, string][] = [
      ['notes_list', { limit: 500 }, 'invalid arguments for notes_list: limit must be <= 100'],
      ['notes_list', { limit: '5' }, 'invalid arguments for notes_list: limit must be integer'],
      ['notes_list', { sort: 'colour' }, 'invalid arguments for notes_list: sort must be one of: title, -title'],
      ['notes_list', { colour: 'red' }, 'invalid arguments for notes_list: colour is not an accepted argument'],
      ['notes_create', {}, 'invalid arguments for notes_create: title is required'],
      ['notes_create', { title: 'x', due_at: '2025-02-30T10:00:00Z' }, 'invalid arguments for notes_create: due_at must match format "date-time"'],
      ['notes_list', [], 'invalid arguments for notes_list: arguments must be an object'],
      ['notes_list', null, 'invalid arguments for notes_list: arguments must be an object'],
      ['notes_list', 'page=1', 'invalid arguments for notes_list: arguments must be an object'],
    ]
    for (const [name, args, message] of cases) expect(await refusal(registry.call(name, args, alice))).toBe(message)
    await expect(registry.call('notes_create', { title: 'x', due_at: '2024-02-29T23:59:60.5+00:00' }, alice)).resolves.toMatchObject({ title: 'x' })
  })

  it('refuses what a column could not hold before the tool runs: a uuid, a length', async () => {
    const run = vi.fn(async () => 'ran')
    const tool: EntityTool = {
      name: 'things_get',
      entity: 'things',
      operation: 'get',
      description: 'Get a thing',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string', format: 'uuid' }, code: { type: 'string', maxLength: 3 } },
        required: ['id'],
        additionalProperties: false,
      },
      run,
    }
    const registry = createToolRegistry([tool])
    expect(await refusal(registry.call('things_get', { id: 'not-a-uuid' }, alice))).toBe('invalid arguments for things_get: id must match format "uuid"')
    expect(await refusal(registry.call('things_get', { id: '0a11ce00-0000-4000-8000-000000000001', code: 'ABCD' }, alice))).toBe(
      'invalid arguments for things_get: code must NOT have more than 3 characters',
    )
    expect(run).not.toHaveBeenCalled()
    await expect(registry.call('things_get', { id: '0A11CE00-0000-4000-8000-000000000001', code: 'ABC' }, alice)).resolves.toBe('ran')
  })

  it('refuses an unknown and a disabled tool with the same text, and lists only enabled tools', async () => {
    const registry = createToolRegistry([...notesTools(), secretTool], { isEnabled: (tool, principal) => tool.entity !== 'secrets' || principal.owner === 'root' })
    expect(await refusal(registry.call('secrets_list', {}, alice))).toBe('tool unavailable: secrets_list')
    expect(await refusal(registry.call('nothing_here', {}, alice))).toBe('tool unavailable: nothing_here')
    expect(registry.list({ owner: 'alice' }).map((t) => t.name)).toEqual(['notes_list', 'notes_get', 'notes_create', 'notes_update', 'notes_delete'])
    expect(registry.list({ owner: 'root' }).map((t) => t.name)).toContain('secrets_list')
    expect(registry.tools).toHaveLength(6)
    await expect(registry.call('secrets_list', {}, { principal: { owner: 'root' } })).resolves.toEqual({ data: ['the secret'] })
  })

  it('treats a throwing isEnabled as disabled, and logs it', async () => {
    const { lines, logger } = capture()
    const registry = createToolRegistry(notesTools(), {
      logger,
      isEnabled: () => {
        throw new Error('gate broke')
      },
    })
    expect(await refusal(registry.call('notes_list', {}, alice))).toBe('tool unavailable: notes_list')
    expect(lines).toEqual(['a2a: isEnabled threw for tool notes_list: Error: gate broke'])
  })

  it('passes ToolErrors through and turns other failures into "<name> failed" with one scrubbed log line', async () => {
    const { lines, logger } = capture()
    const registry = createToolRegistry([...notesTools(), crashingTool], { logger })
    expect(await refusal(registry.call('notes_get', { id: 'n9' }, alice))).toBe('note n9 not found')
    expect(await refusal(registry.call('crashes_list', {}, alice))).toBe('crashes_list failed')
    expect(lines).toEqual(['a2a: tool crashes_list failed: Error: db down ERROR forged line'])
  })

  it('scrubs and bounds an unknown name it echoes', async () => {
    const registry = createToolRegistry(notesTools())
    const message = await refusal(registry.call(`x\n${'y'.repeat(400)}`, {}, alice))
    expect(message).not.toContain('\n')
    expect(message.length).toBeLessThan(160)
  })
})

describe('isDateTime', () => {
  it('accepts RFC 3339 timestamps with real calendar values', () => {
    for (const value of ['2026-09-01T22:43:45.791Z', '2024-02-29T00:00:00Z', '1990-12-31t23:59:60z', '2026-01-01T00:59:60+01:00', '2026-06-30T10:00:00-07:30']) {
      expect(isDateTime(value), value).toBe(true)
    }
  })
  it('refuses other shapes and impossible values', () => {
    for (const value of [
      '2026-09-01',
      '2026-09-01 22:43:45Z',
      '2026-09-01T22:43:45',
      '2025-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T12:00:60Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00.Z',
    ]) {
      expect(isDateTime(value), value).toBe(false)
    }
  })
})
