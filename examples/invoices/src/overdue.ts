import { defineSkill, type Skill } from '@a2a-agent/runtime'
import type { Db } from './db.js'
import { Prisma } from './generated/prisma/client.js'

/**
 * A hand-written skill beside the generated entity skills: the caller's unpaid invoices past their
 * due date, oldest first, with the amount due per currency. Add your own beside it.
 */
export function overdue(db: Db): Skill {
  return defineSkill({
    id: 'overdue',
    name: 'Overdue invoices',
    description: 'Lists your unpaid invoices past their due date, oldest first, with the total due per currency.',
    examples: ['What is overdue?'],
    handler: async (ctx) => {
      const invoices = await db.invoice.findMany({
        // Owner-scoped like the generated tools: a caller only ever sees their own invoices.
        where: { userId: ctx.principal.owner, paid: false, dueAt: { lt: new Date() } },
        orderBy: [{ dueAt: 'asc' }, { number: 'asc' }],
        select: { id: true, number: true, total: true, currency: true, dueAt: true, customer: { select: { name: true } } },
      })
      // Decimal sums, so 0.1 + 0.2 is 0.3 and money never goes through binary floating point.
      const totals = new Map<string, Prisma.Decimal>()
      for (const { currency, total } of invoices) totals.set(currency, (totals.get(currency) ?? new Prisma.Decimal(0)).plus(total))
      const due = [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([currency, total]) => [currency, total.toString()] as const)
      await ctx.artifact({
        name: 'overdue',
        parts: [
          {
            data: {
              invoices: invoices.map(({ customer, total, dueAt, ...invoice }) => ({ ...invoice, customer: customer.name, total: total.toString(), dueAt: dueAt.toISOString() })),
              totals: Object.fromEntries(due),
            },
          },
        ],
      })
      await ctx.complete(invoices.length === 0 ? 'Nothing is overdue.' : `${invoices.length} overdue: ${due.map(([currency, total]) => `${total} ${currency}`).join(', ')}.`)
    },
  })
}
