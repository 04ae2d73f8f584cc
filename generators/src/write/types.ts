/**
 * Shapes the write stage works with; its input is the plan stage's `Plan`.
 * @module
 */
import type { GeneratorError } from '../errors.js'
import type { PlannedFile } from '../plan/plan.js'

export type { Plan, PlannedFile } from '../plan/plan.js'

export type Ownership = PlannedFile['ownership']

/** `write` changes disk; the other modes only report (`check` also decides the exit code). */
export type ApplyMode = 'write' | 'dry-run' | 'check' | 'diff'

export interface ApplyOptions {
  mode: ApplyMode
  /** Overwrite (or delete) generated files even when they were changed by hand. */
  force?: boolean
}

/**
 * What happened to a file, or would happen outside `write` mode. `kept`: a user-owned file that
 * exists and is never rewritten; `refused`: a generated file changed by hand, left alone.
 */
export type FileAction = 'created' | 'updated' | 'deleted' | 'kept' | 'unchanged' | 'refused'

/**
 * Why a generated file counts as hand-made: `edited` (differs from the hash a2a last wrote) or
 * `untracked` (on disk, but not in the manifest).
 */
export type HandEdit = 'edited' | 'untracked'

export interface FileOutcome {
  path: string
  ownership: Ownership
  action: FileAction
  /** Set on `refused` files, and on files `--force` overwrote or deleted. */
  handEdit?: HandEdit
  /** The file left the plan (its entity was removed); it is deleted or refused. */
  orphan?: boolean
  /** Unified diff (`a/` and `b/` prefixes), in `diff` mode for files that change or are refused. */
  diff?: string
  /** A user-owned file a2a leaves alone although the app needs it changed: what to change. */
  advice?: string
  /** A user-owned file a2a edited in place, leaving the user's lines as they were: what it changed. */
  edits?: string[]
}

export interface ApplyReport {
  appRoot: string
  mode: ApplyMode
  force: boolean
  /** Every planned file plus every orphan still on disk, sorted by path. */
  files: FileOutcome[]
  /** What the run did (or would do) to `.a2a/manifest.json`. */
  manifest: 'created' | 'updated' | 'unchanged'
  /** True only when this run changed disk. */
  wrote: boolean
  /** Refusals; when present, nothing was written. */
  errors: GeneratorError[]
  /** The plan's notes: what the generator left out of the entities, and why. */
  notes?: string[]
}
