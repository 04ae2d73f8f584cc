import { describe, expect, it } from 'vitest'
import type { User } from '@a2a-agent/runtime/testing'
import { reportsAgent } from './reports.js'

const reports = reportsAgent()

async function overdue(user: User) {
  const task = await reports.ask(user, 'overdue', 'What is overdue?')
  expect(task.status.state).toBe('TASK_STATE_COMPLETED')
  return { summary: task.status.message.parts[0].text as string, ...(task.artifacts[0].parts[0].data as { invoices: any[]; totals: Record<string, string> }) }
}

const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

describe('the overdue skill', () => {
  it("lists the caller's unpaid invoices past due, oldest first, with decimal totals per currency", async () => {
    const { invoices } = reports
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
