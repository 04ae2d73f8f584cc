/**
 * Turns an {@link ApplyReport} into the lines the CLI prints: per-file lines grouped by action
 * (unified diffs in `diff` mode), then one summary line. Paths stay relative to the app root.
 * Refusals are not repeated here; the CLI prints the report's errors on stderr.
 * @module
 */
import { isUpToDate } from './apply-plan.js'
import { MANIFEST_PATH } from './manifest.js'
import type { ApplyReport, FileAction, FileOutcome } from './types.js'

const GROUPS: FileAction[] = ['created', 'updated', 'deleted', 'refused', 'kept']

const PREVIEW_VERBS: Record<FileAction, string> = {
  created: 'would create',
  updated: 'would update',
  deleted: 'would delete',
  refused: 'refused',
  kept: 'kept',
  unchanged: 'unchanged',
}

export function formatReport(report: ApplyReport): string[] {
  const generated = report.files.filter((file) => file.ownership === 'generated' && !file.orphan).length
  const files = `${generated} generated ${generated === 1 ? 'file' : 'files'}`
  const notes = [
    ...(report.notes ?? []).map((note) => `Note: ${note}`),
    ...report.files.flatMap((file) =>
      file.advice ? [`Change ${file.path} (yours, so a2a ${file.edits ? 'edited only what left your lines as they were' : 'left it'}): ${file.advice}.`] : [],
    ),
  ]
  if (isUpToDate(report)) {
    return report.mode === 'check'
      ? [`Up to date: ${files} ${generated === 1 ? 'matches' : 'match'} the plan.`, ...notes]
      : [`Nothing to do: ${files} ${generated === 1 ? 'is' : 'are'} up to date.`, ...notes]
  }
  // A refused write changed nothing; the error on stderr lists the files and the way out.
  if (report.mode === 'write' && report.errors.length > 0) return notes

  const lines = report.mode === 'diff' ? diffLines(report) : listLines(report)
  return [...lines, summary(report), ...notes]
}

function listLines(report: ApplyReport): string[] {
  const preview = report.mode !== 'write'
  const verb = (action: FileAction) => (preview ? PREVIEW_VERBS[action] : action)
  // Kept files are listed only in a dry run; elsewhere they would repeat on every run.
  const groups = GROUPS.filter((action) => action !== 'kept' || report.mode === 'dry-run')
  const rows: Array<[string, string]> = []
  for (const action of groups) {
    for (const file of report.files) if (file.action === action) rows.push([verb(action), `${file.path}${note(file)}`])
    if (report.manifest === action) rows.push([verb(action), MANIFEST_PATH])
  }
  const width = Math.max(0, ...rows.map(([label]) => label.length))
  return rows.map(([label, text]) => `${label.padEnd(width)}  ${text}`)
}

function diffLines(report: ApplyReport): string[] {
  const lines: string[] = []
  for (const file of report.files) if (file.diff !== undefined) lines.push(...file.diff.replace(/\n$/, '').split('\n'))
  if (report.manifest !== 'unchanged') lines.push(`(${MANIFEST_PATH} would be ${report.manifest} too)`)
  return lines
}

function note(file: FileOutcome): string {
  if (file.action === 'refused') {
    if (file.orphan) return ' (edited by hand; no longer generated)'
    return file.handEdit === 'untracked' ? ' (not written by a2a)' : ' (edited by hand)'
  }
  if (file.handEdit) return ' (hand edit replaced: --force)'
  if (file.orphan) return ' (no longer generated)'
  if (file.edits?.length) return ` (yours, edited in place: ${file.edits.join('; ')})`
  if (file.ownership === 'user') return file.action === 'created' ? ' (yours: never overwritten)' : ' (yours)'
  return ''
}

function summary(report: ApplyReport): string {
  const count = (action: FileAction) => report.files.filter((file) => file.action === action).length
  const preview = report.mode !== 'write'
  const parts: string[] = []
  for (const action of ['created', 'updated', 'deleted', 'refused', 'unchanged', 'kept'] as const) {
    const n = count(action)
    if (n === 0) continue
    const word = preview && action !== 'refused' && action !== 'unchanged' && action !== 'kept' ? `to ${PREVIEW_VERBS[action].slice('would '.length)}` : action
    parts.push(`${n} ${word}`)
  }
  const counts = parts.length > 0 ? parts.join(', ') : `${MANIFEST_PATH} only`
  switch (report.mode) {
    case 'write':
      return `Done: ${counts}.`
    case 'dry-run':
      return `Dry run, nothing written: ${counts}.`
    case 'diff':
      return `Diff only, nothing written: ${counts}.`
    case 'check':
      // With hand edits, rerunning alone would be refused too; the error says what to do instead.
      return report.errors.length > 0 ? `Out of date: ${counts}.` : `Out of date: ${counts}. Rerun without --check to regenerate.`
  }
}
