// Hooks for the customers tools: checks and policy before an agent's write reaches the database.
// Throw `ToolError` (from '@a2a-agent/runtime') to refuse: its message is what the agent sees.
// This file is yours: `a2a generate entities` created it once and never rewrites it.
import type { ToolContext } from '@a2a-agent/runtime'
import type { CustomersCreateInput } from '../customers.gen.js'

/**
 * Runs before an agent creates a customer: the arguments passed the tool's schema and
 * nothing is written yet. Check here what a schema cannot: ranges, references, quotas.
 */
export async function beforeCreate(_input: CustomersCreateInput, _context: ToolContext): Promise<void> {}
