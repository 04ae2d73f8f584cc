// Hooks for the notes tools: checks and policy before an agent's write reaches the database.
// Throw `ToolError` (from '@a2a-agent/runtime') to refuse: its message is what the agent sees.
// This file is yours: `a2a generate entities` created it once and never rewrites it.
import type { ToolContext } from '@a2a-agent/runtime'
import type { NoteRow, NotesCreateInput } from '../notes.gen.js'

/**
 * Runs before an agent creates a note: the arguments passed the tool's schema and
 * nothing is written yet. Check here what a schema cannot: ranges, references, quotas.
 */
export async function beforeCreate(
  _input: NotesCreateInput,
  _context: ToolContext,
): Promise<void> {}

/** Runs before an agent deletes one of its notes: `_current` is the row as stored. */
export async function beforeDelete(_current: NoteRow, _context: ToolContext): Promise<void> {}
