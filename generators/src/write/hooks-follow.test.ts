import { describe, expect, it } from 'vitest'
import { planFrom } from '../plan/plan.js'
import { INVOICE_SCHEMA, resolve } from '../testing.js'
import { formatReport } from './format-report.js'
import { useTempApp } from './test-helpers.js'

// A hooks file is the user's, but one still exactly as a2a wrote it follows its entity: removing
// an operation or the entity must never leave the app failing its type-check.
const app = useTempApp()
const invoices = { model: 'Invoice', ownerField: 'userId' }
const HOOKS = 'src/a2a/hooks/invoices.ts'
const planOf = (declarations: Record<string, unknown>) => planFrom(resolve(INVOICE_SCHEMA, declarations))

describe('hooks files and their entity', () => {
  it('rewrites an untouched hooks file when an operation goes, and deletes it with its entity', async () => {
    await app.write(await planOf({ invoices }))
    expect(await app.read(HOOKS)).toContain('beforeUpdate')
    const fewer = await app.write(await planOf({ invoices: { ...invoices, operations: ['list', 'create'] } }))
    expect(fewer.files.find((file) => file.path === HOOKS)?.action).toBe('updated')
    const hooks = await app.read(HOOKS)
    expect(hooks).not.toContain('beforeUpdate')
    expect(hooks).not.toContain('InvoiceRow')
    const gone = await app.write(await planOf({}))
    expect(gone.files.find((file) => file.path === HOOKS)?.action).toBe('deleted')
    expect(await app.exists(HOOKS)).toBe(false)
  })

  it('keeps an edited hooks file and says what to change in it', async () => {
    await app.write(await planOf({ invoices: { ...invoices, operations: ['list', 'create', 'update'] } }))
    const edited = (await app.read(HOOKS)).replace('Promise<void> {}', "Promise<void> {\n  console.log('creating')\n}")
    await app.edit(HOOKS, edited)

    const report = await app.write(await planOf({ invoices: { ...invoices, operations: ['list', 'create', 'delete'] } }))
    expect(await app.read(HOOKS)).toBe(edited)
    const lines = formatReport(report)
    expect(lines).toContain(
      `Change ${HOOKS} (yours, so a2a left it): add \`export async function beforeDelete(_current: InvoiceRow, _context: ToolContext): Promise<void> { … }\`; drop InvoicesUpdateInput from the type import (no longer generated); remove beforeUpdate (no longer called: its operation is gone).`,
    )

    const removed = formatReport(await app.write(await planOf({})))
    expect(await app.read(HOOKS)).toBe(edited)
    expect(removed).toContain(
      `Change ${HOOKS} (yours, so a2a left it): its entity is no longer declared and the generated module it imports is gone; delete the file, or move what you keep elsewhere.`,
    )
  })
})
