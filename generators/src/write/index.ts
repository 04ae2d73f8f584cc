/**
 * The write stage of `a2a generate entities`: apply a plan to disk with a manifest of what was
 * generated, refusing to clobber hand edits.
 * @module
 */
export type {
  ApplyMode,
  ApplyOptions,
  ApplyReport,
  FileAction,
  FileOutcome,
  HandEdit,
  Ownership,
  Plan,
  PlannedFile,
} from './types.js'
export { applyPlan, exitCodeFor, isUpToDate } from './apply-plan.js'
export { formatReport } from './format-report.js'
export { MANIFEST_PATH } from './manifest.js'
