import { defineJob, defineSkill, type Job, type Skill } from '@a2a-agent/runtime'
import { z } from 'zod'
import type { Db } from './db.js'
import { Prisma } from './generated/prisma/client.js'

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/

/**
 * The work of a monthly statement, run as a job: it reads every invoice due in the month and may
 * take a while on a large ledger, so the skill below hands it to the queue instead of holding its
 * run. A worker runs it (retried on failure, taken back from a worker that died) and completes the
 * task with the statement as an artifact.
 */
export function statementJob(db: Db) {
  return defineJob({
    name: 'monthly-statement',
    input: z.object({ month: z.string().regex(MONTH, 'a month as YYYY-MM') }),
    retries: 3,
    backoff: { delayMs: 5000, exponential: true },
    run: async (ctx, { month }) => {
      // Done already by an attempt that died after storing it: a statement is made once.
      if (ctx.artifacts.some((artifact) => artifact.artifactId === 'statement')) return
      const [, year, number] = MONTH.exec(month)!
      const from = new Date(Date.UTC(Number(year), Number(number) - 1, 1))
      const to = new Date(Date.UTC(Number(year), Number(number), 1))
      const invoices = await db.invoice.findMany({
        // Owner-scoped like the generated tools: the caller who asked gets only their own invoices.
        where: { userId: ctx.principal.owner, dueAt: { gte: from, lt: to } },
        orderBy: [{ dueAt: 'asc' }, { number: 'asc' }],
        select: { number: true, total: true, currency: true, dueAt: true, paid: true, customer: { select: { name: true } } },
      })
      // Decimal sums per currency, paid and open apart.
      const totals = new Map<string, { paid: Prisma.Decimal; open: Prisma.Decimal }>()
      for (const { currency, total, paid } of invoices) {
        const sums = totals.get(currency) ?? { paid: new Prisma.Decimal(0), open: new Prisma.Decimal(0) }
        if (paid) sums.paid = sums.paid.plus(total)
        else sums.open = sums.open.plus(total)
        totals.set(currency, sums)
      }
      const byCurrency = [...totals].sort(([a], [b]) => a.localeCompare(b))
      await ctx.artifact({
        artifactId: 'statement',
        name: `statement ${month}`,
        parts: [
          {
            data: {
              month,
              invoices: invoices.map(({ customer, total, dueAt, ...invoice }) => ({ ...invoice, customer: customer.name, total: total.toString(), dueAt: dueAt.toISOString() })),
              totals: Object.fromEntries(byCurrency.map(([currency, { paid, open }]) => [currency, { paid: paid.toString(), open: open.toString() }])),
            },
          },
        ],
      })
      await ctx.complete(
        invoices.length === 0
          ? `No invoices were due in ${month}.`
          : `${invoices.length} invoice${invoices.length === 1 ? '' : 's'} due in ${month}: ${byCurrency.map(([currency, { open }]) => `${open.toString()} ${currency} open`).join(', ')}.`,
      )
    },
  })
}

/** The skill: checks the month, then queues the statement's job and answers at once with the task WORKING. */
export function statement(job: Job): Skill {
  return defineSkill({
    id: 'statement',
    name: 'Monthly statement',
    description:
      'Prepares your statement for a month (YYYY-MM): every invoice due in it, with paid and open totals per currency. Takes a while; the task completes when it is ready.',
    examples: ['2026-11'],
    handler: async (ctx) => {
      const month = ctx.text.trim()
      if (!MONTH.test(month)) return ctx.reject(`Send the month as YYYY-MM, e.g. 2026-11 (got ${JSON.stringify(month.slice(0, 40))}).`)
      await ctx.enqueue(job, { month }, `Preparing your statement for ${month}.`)
    },
  })
}
