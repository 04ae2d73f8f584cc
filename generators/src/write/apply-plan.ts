/**
 * The write stage: compare the plan with disk and `.a2a/manifest.json`, then write (or only
 * report, in `dry-run`, `diff` and `check` modes). Hand edits to generated files are found before
 * anything is written, so a refused run leaves the tree exactly as it was.
 * @module
 */
import { rm } from 'node:fs/promises'
import { posix, resolve } from 'node:path'
import { GeneratorError } from '../errors.js'
import { type Decision, assess } from './assess.js'
import { removeEmptyParents, writeFileAtomic } from './atomic.js'
import type { unifiedDiff } from './diff.js'
import { MANIFEST_PATH } from './manifest.js'
import { resolveInApp } from './paths.js'
import type { ApplyOptions, ApplyReport, FileOutcome, Plan } from './types.js'

export async function applyPlan(appRoot: string, plan: Plan, options: ApplyOptions): Promise<ApplyReport> {
  const root = resolve(appRoot)
  const force = options.force ?? false
  const { decisions, manifest, manifestText, refreshCache } = await assess(root, plan, force)
  const refused = decisions.filter((decision) => decision.action === 'refused')
  const errors = refused.length > 0 ? [refusal(refused, plan)] : []
  let wrote = false
  if (options.mode === 'write' && errors.length === 0) {
    wrote = await carryOut(root, decisions, manifest === 'unchanged' && !refreshCache ? undefined : manifestText)
  }
  // The diff library is loaded only for --diff: every other run, a no-op above all, goes without it.
  const diff = options.mode === 'diff' ? (await import('./diff.js')).unifiedDiff : undefined
  const files = decisions.map((decision) => outcome(decision, diff))
  return { appRoot: root, mode: options.mode, force, files, manifest, wrote, errors, ...(plan.notes?.length ? { notes: plan.notes } : {}) }
}

/** Nothing to create, update, delete or refuse, and the manifest already matches. */
export function isUpToDate(report: ApplyReport): boolean {
  return report.errors.length === 0 && report.manifest === 'unchanged' && report.files.every((file) => file.action === 'unchanged' || file.action === 'kept')
}

/** 1 when the run was refused, or when `check` finds anything stale; 0 otherwise. */
export function exitCodeFor(report: ApplyReport): 0 | 1 {
  if (report.errors.length > 0) return 1
  return report.mode === 'check' && !isUpToDate(report) ? 1 : 0
}

async function carryOut(root: string, decisions: Decision[], manifestText: string | undefined): Promise<boolean> {
  let wrote = false
  const writes = decisions.filter((d) => d.action === 'created' || d.action === 'updated')
  await Promise.all(writes.map((d) => writeFileAtomic(resolveInApp(root, d.path), d.content ?? '')))
  wrote ||= writes.length > 0
  // Deletions one at a time: each may empty a folder that the next one's cleanup walks through.
  for (const decision of decisions) {
    if (decision.action !== 'deleted') continue
    const file = resolveInApp(root, decision.path)
    await rm(file, { force: true })
    await removeEmptyParents(root, file)
    wrote = true
  }
  // The manifest goes last: after a crash, files already written match the plan, and the next run
  // sees them as unchanged rather than as hand edits.
  if (manifestText !== undefined) {
    await writeFileAtomic(resolveInApp(root, MANIFEST_PATH), manifestText)
    wrote = true
  }
  return wrote
}

function outcome(decision: Decision, diff: typeof unifiedDiff | undefined): FileOutcome {
  const { content, current, ...rest } = decision
  const changes = decision.action !== 'unchanged' && decision.action !== 'kept'
  if (!diff || !changes) return rest
  const after = decision.orphan ? undefined : content
  return { ...rest, diff: diff(decision.path, current, after) }
}

function refusal(refused: Decision[], plan: Plan): GeneratorError {
  const width = Math.max(...refused.map((d) => d.path.length))
  const one = refused.length === 1
  return new GeneratorError(
    [
      `Refusing to overwrite ${one ? 'a generated file' : `${refused.length} generated files`} changed by hand:`,
      ...refused.map((d) => `  ${d.path.padEnd(width)}  ${why(d)}`),
      `Nothing was written. Move your change into the entity's hooks file (${hooksHint(plan)}), which a2a never overwrites, then rerun; or rerun with --force to replace ${one ? 'it' : 'them'} with the generated version.`,
    ].join('\n'),
  )
}

function why(decision: Decision): string {
  if (decision.orphan) return 'edited since a2a generated it, and no longer generated (delete it yourself, or --force deletes it)'
  if (decision.handEdit === 'untracked') return `exists, but a2a did not write it (not in ${MANIFEST_PATH})`
  return 'edited since a2a generated it'
}

// Point at the plan's own hooks folder when it has one, so the hint follows --out overrides.
function hooksHint(plan: Plan): string {
  const hook = plan.files.find((file) => file.ownership === 'user' && /(^|\/)hooks\//.test(file.path))
  if (!hook) return 'src/a2a/hooks/<entity>.ts'
  const ext = /\.[^./]+$/.exec(hook.path)?.[0] ?? '.ts'
  return `${posix.dirname(hook.path)}/<entity>${ext}`
}
