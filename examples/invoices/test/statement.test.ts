import { describe, expect, it } from 'vitest'
import type { User } from '@a2a-agent/runtime/testing'
import { reportsAgent } from './reports.js'

const reports = reportsAgent()
const { call } = reports
const ask = (user: User, text: string) => reports.ask(user, 'statement', text)

describe('the statement skill, its work run as a job', () => {
  it("answers WORKING at once; the job completes the task with the month's invoices and totals, the caller's only", async () => {
    const { app, invoices } = reports
    const acme = await invoices.tool('alice', 'customers_create', { name: 'Acme' })
    const record = (user: User, customerId: string, number: string, total: string, dueAt: string) =>
      invoices.tool(user, 'invoices_create', { number, total, currency: 'EUR', dueAt, customerId })
    await record('alice', acme.id, 'NOV-2', '0.2', '2026-11-20T00:00:00.000Z')
    const paid = await record('alice', acme.id, 'NOV-1', '0.1', '2026-11-02T00:00:00.000Z')
    await record('alice', acme.id, 'DEC-1', '99', '2026-12-01T00:00:00.000Z')
    const globex = await invoices.tool('bob', 'customers_create', { name: 'Globex' })
    await record('bob', globex.id, 'BOB-1', '42', '2026-11-10T00:00:00.000Z')
    // Agents cannot mark an invoice paid (the field is read-only to them); the app's own code can.
    await app.db.invoice.update({ where: { id: paid.id }, data: { paid: true } })

    const task = await ask('alice', '2026-11')
    expect(task.status.state).toBe('TASK_STATE_WORKING')
    expect(task.status.message.parts).toEqual([{ text: 'Preparing your statement for 2026-11.' }])
    await expect.poll(async () => (await call('alice', 'GetTask', { id: task.id })).status.state, { timeout: 10_000 }).toBe('TASK_STATE_COMPLETED')
    const done = await call('alice', 'GetTask', { id: task.id })
    expect(done.status.message.parts).toEqual([{ text: '2 invoices due in 2026-11: 0.2 EUR open.' }])
    expect(done.artifacts).toHaveLength(1)
    const statement = done.artifacts[0].parts[0].data
    expect(statement.month).toBe('2026-11')
    expect(statement.invoices.map((invoice: any) => [invoice.number, invoice.customer, invoice.total, invoice.paid])).toEqual([
      ['NOV-1', 'Acme', '0.1', true],
      ['NOV-2', 'Acme', '0.2', false],
    ])
    expect(statement.totals).toEqual({ EUR: { paid: '0.1', open: '0.2' } })
    // Bob cannot read alice's statement task.
    await expect(call('bob', 'GetTask', { id: task.id })).rejects.toThrow(/-32001/)
  })

  it('rejects a month it cannot read, naming the form to send', async () => {
    const task = await ask('alice', 'November')
    expect(task.status.state).toBe('TASK_STATE_REJECTED')
    expect(task.status.message.parts).toEqual([{ text: 'Send the month as YYYY-MM, e.g. 2026-11 (got "November").' }])
  })
})
