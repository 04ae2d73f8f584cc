import { describe, expect, it } from 'vitest'
import { mayNeedEdits, userEdits } from './user-edits.js'

const HOOKS = 'src/a2a/hooks/notes.ts'
const GEN = 'src/a2a/notes.gen.ts'

describe('editing a user-owned file in place', () => {
  it('renames a type the generated module now calls differently, wherever the user wrote it', async () => {
    const current = [
      "import type { ToolContext } from '@a2a-agent/runtime'",
      "import type { NoteRecord } from '../notes.gen.js'",
      '',
      'export async function beforeDelete(_current: NoteRecord, _context: ToolContext): Promise<void> {',
      '  const kept: NoteRecord[] = [_current] // mine',
      "  if (kept.length > 1) throw new Error('one at a time')",
      '}',
      '',
    ].join('\n')
    const planned = [
      "import type { ToolContext } from '@a2a-agent/runtime'",
      "import type { NoteRow } from '../notes.gen.js'",
      '',
      'export async function beforeDelete(_current: NoteRow, _context: ToolContext): Promise<void> {}',
      '',
    ].join('\n')
    const generated = 'export interface NoteRow {\n  id: string\n}\n'
    expect(mayNeedEdits(HOOKS, current, planned)).toBe(true)
    const edits = await userEdits(HOOKS, current, planned, (path) => (path === GEN ? generated : undefined))
    expect(edits.changes).toEqual(['renamed NoteRecord to NoteRow'])
    expect(edits.advice).toEqual([])
    expect(edits.content).toBe(current.replaceAll('NoteRecord', 'NoteRow'))
  })

  it('keeps a name the generated module still exports, though the plan does not import it', async () => {
    const current =
      "import type { NoteRow, NotesCreateInput } from '../notes.gen.js'\n\nexport async function beforeCreate(_input: NotesCreateInput): Promise<void> {}\nexport type Mine = NoteRow\n"
    const planned = "import type { NotesCreateInput } from '../notes.gen.js'\n\nexport async function beforeCreate(_input: NotesCreateInput): Promise<void> {}\n"
    const generated = 'export interface NoteRow {}\nexport interface NotesCreateInput {}\n'
    expect(await userEdits(HOOKS, current, planned, (path) => (path === GEN ? generated : undefined))).toEqual({ changes: [], advice: [] })
  })

  it('adds a missing export of test/support.ts with the imports it needs, after the last line of the user', async () => {
    const current = "import { createDb } from '../src/db.js'\n\nexport async function createTestApp() {\n  return { db: createDb(), url: '', close: async () => {} }\n}\n// mine\n"
    const planned =
      "import { createDb, type Db } from '../src/db.js'\nimport type { Clock } from './clock.js'\n\nexport interface TestApp {\n  /** The database. */\n  db: Db\n  clock?: Clock\n}\n\nexport async function createTestApp(): Promise<TestApp> {\n  return { db: createDb() }\n}\n"
    expect(mayNeedEdits('test/support.ts', current, planned)).toBe(true)
    const edits = await userEdits('test/support.ts', current, planned)
    expect(edits.changes).toEqual(['added TestApp'])
    expect(edits.content).toBe(
      "import { createDb, type Db } from '../src/db.js'\nimport type { Clock } from './clock.js'\n\nexport async function createTestApp() {\n  return { db: createDb(), url: '', close: async () => {} }\n}\n// mine\n\nexport interface TestApp {\n  /** The database. */\n  db: Db\n  clock?: Clock\n}\n",
    )
  })

  it('leaves a file alone, without loading the compiler, when it declares everything the plan exports', () => {
    const current = "export interface TestApp { url: string; a2aUrl: string }\nexport async function createTestApp(): Promise<TestApp> {\n  return { url: '', a2aUrl: '' }\n}\n"
    const planned = "export interface TestApp { url: string }\nexport async function createTestApp(): Promise<TestApp> {\n  return { url: '' }\n}\n"
    expect(mayNeedEdits('test/support.ts', current, planned)).toBe(false)
    expect(mayNeedEdits('prisma/seed.sql', 'a', 'export const b = 1')).toBe(false)
  })
})
