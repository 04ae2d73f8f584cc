import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entityCaller, type EntityCaller, type User } from '@a2a-agent/runtime/testing'
import { createTestApp, type TestApp } from './support.js'

let app: TestApp
// Only its MCP tool calls are used here: they record the invoices the skill then reads.
let invoices: EntityCaller

beforeAll(async () => {
  app = await createTestApp()
  invoices = await entityCaller(app, { skill: 'entity.invoices', tools: {} })
})

afterAll(async () => {
  await invoices?.close()
  await app?.close()
})

async function overdue(user: User) {
  const response = await fetch(`${app.url}/a2a/reports`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${app.tokens[user]}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'What is overdue?' }], metadata: { skill: 'overdue' } } },
    }),
  })
  expect(response.status).toBe(200)
  const { result } = (await response.json()) as any
  expect(result.task.status.state).toBe('TASK_STATE_COMPLETED')
  return { summary: result.task.status.message.parts[0].text as string, ...(result.task.artifacts[0].parts[0].data as { invoices: any[]; totals: Record<string, string> }) }
}

const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

describe('the overdue skill', () => {
  it("lists the caller's unpaid invoices past due, oldest first, with decimal totals per currency", async () => {
    const acme = await invoices.tool('alice', 'customers_create', { name: 'Acme' })
    const record = (user: User, customerId: string, number: string, total: string, currency: string, dueAt: string) =>
      invoices.tool(user, 'invoices_create', { number, total, currency, dueAt, customerId })
    await record('alice', acme.id, 'INV-2', '0.2', 'EUR', daysFromNow(-3))
    await record('alice', acme.id, 'INV-1', '0.1', 'EUR', daysFromNow(-10))
    await record('alice', acme.id, 'INV-3', '5', 'USD', daysFromNow(-1))
    await record('alice', acme.id, 'INV-4', '99', 'EUR', daysFromNow(7))
    const bobs = await invoices.tool('bob', 'customers_create', { name: 'Globex' })
    await record('bob', bobs.id, 'BOB-1', '42', 'EUR', daysFromNow(-5))

    const alice = await overdue('alice')
    expect(alice.invoices.map((invoice) => [invoice.number, invoice.customer, invoice.total])).toEqual([
      ['INV-1', 'Acme', '0.1'],
      ['INV-2', 'Acme', '0.2'],
      ['INV-3', 'Acme', '5'],
    ])
    expect(alice.totals).toEqual({ EUR: '0.3', USD: '5' })
    expect(alice.summary).toBe('3 overdue: 0.3 EUR, 5 USD.')
    expect(alice.invoices[0]).not.toHaveProperty('note')

    const bob = await overdue('bob')
    expect(bob.invoices.map((invoice) => invoice.number)).toEqual(['BOB-1'])
    expect(bob.totals).toEqual({ EUR: '42' })
  })
})
