/**
 * The invoices example with its one A2A 0.3 option on (`createApp({ v03: true })`, A2A_COMPAT_V03
 * in main.ts): the official 0.3-era client (@a2a-js/sdk 0.3.14) finds each agent from its card and
 * calls its skills, on the same tasks the 1.0 client reads, each owner seeing only their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GetTaskRequest, Task } from '@a2a-js/sdk'
import type { Client as Client03 } from 'a2a-sdk-v03/client'
import { bearerFetch, connect03, connect10 } from '../packages/runtime/src/compat-v03/__fixture__/clients.js'
import { assertWire } from '../packages/runtime/src/testing/wire-schema.js'
import { assertWireV03 } from '../packages/runtime/src/testing/wire-schema-v03.js'
import { createTestApp, type TestApp } from '../examples/invoices/test/support.js'

let app: TestApp

const client03 = (token: string, agent: 'invoices' | 'reports'): Promise<Client03> => connect03(`${app.url}/a2a/${agent}/`, bearerFetch(token))

let counter = 0
async function callSkill(client: Client03, data: Record<string, unknown>): Promise<any> {
  const result = await client.sendMessage({ message: { kind: 'message', messageId: `invoices-v03-${++counter}`, role: 'user', parts: [{ kind: 'data', data }] } })
  // Checked as the 0.3 schema has a task; a bare message would fail here.
  return assertWireV03('Task', result)
}

beforeAll(async () => {
  app = await createTestApp({ v03: true })
})
afterAll(() => app?.close())

describe('the invoices example with v03 on, through the official 0.3 client', () => {
  it("serves each agent's 0.3 card, at agent.json and to the 0.3 client", async () => {
    for (const agent of ['invoices', 'reports'] as const) {
      const response = await fetch(`${app.url}/a2a/${agent}/.well-known/agent.json`)
      expect(response.status).toBe(200)
      const card = assertWireV03('AgentCard', (await response.json()) as any)
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        url: `${app.url}/a2a/${agent}`,
        securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
        security: [{ bearer: [] }],
      })
      const client = await client03(app.tokens.alice, agent)
      expect((await client.getAgentCard()).url).toBe(`${app.url}/a2a/${agent}`)
    }
  })

  it('runs entity.invoices for its owner only; the 1.0 client reads the same task', async () => {
    const alice = await client03(app.tokens.alice, 'invoices')
    const bob = await client03(app.tokens.bob, 'invoices')
    const created = await callSkill(alice, { skill: 'entity.customers', operation: 'create', arguments: { name: 'Globex' } })
    expect(created.status.state).toBe('completed')
    const listed = await callSkill(alice, { skill: 'entity.customers', operation: 'list', arguments: {} })
    expect(listed.artifacts[0].parts[0]).toMatchObject({ kind: 'data', data: { total: 1, data: [expect.objectContaining({ name: 'Globex' })] } })
    await expect(bob.getTask({ id: listed.id })).rejects.toThrow(/Task not found/)
    const bobs = await callSkill(bob, { skill: 'entity.customers', operation: 'list', arguments: {} })
    expect(bobs.artifacts[0].parts[0].data).toMatchObject({ total: 0, data: [] })

    const v1 = await connect10(`${app.url}/a2a/invoices/`, bearerFetch(app.tokens.alice))
    const same = assertWire('Task', Task.toJSON(await v1.getTask(GetTaskRequest.fromJSON({ id: listed.id }))) as any)
    expect(same).toMatchObject({ id: listed.id, status: { state: 'TASK_STATE_COMPLETED' } })
  })
})
