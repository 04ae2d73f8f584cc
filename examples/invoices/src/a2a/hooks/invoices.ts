// Hooks for the invoices tools: checks and policy before an agent's write reaches the database.
// Throw `ToolError` (from '@a2a-agent/runtime') to refuse: its message is what the agent sees.
// This file is yours: `a2a generate entities` created it once and never rewrites it.
import type { ToolContext } from '@a2a-agent/runtime'
import type { InvoiceRow, InvoicesCreateInput, InvoicesUpdateInput } from '../invoices.gen.js'

/**
 * Runs before an agent creates an invoice: the arguments passed the tool's schema and
 * nothing is written yet. Check here what a schema cannot: ranges, references, quotas.
 */
export async function beforeCreate(_input: InvoicesCreateInput, _context: ToolContext): Promise<void> {}

/**
 * Runs before an agent updates one of its invoices: `_input` holds the id and the fields to
 * change, `_current` the row as stored.
 */
export async function beforeUpdate(_input: InvoicesUpdateInput, _current: InvoiceRow, _context: ToolContext): Promise<void> {}

/** Runs before an agent deletes one of its invoices: `_current` is the row as stored. */
export async function beforeDelete(_current: InvoiceRow, _context: ToolContext): Promise<void> {}
