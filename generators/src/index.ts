/**
 * `@a2a-agent/generators`: the stages behind `a2a generate entities`. Named exports only; every
 * export here is public API.
 * @module
 */
export { GeneratorError } from './errors.js'
export type { PlanInput } from './plan/plan.js'
export { plan } from './plan/plan.js'
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
} from './write/index.js'
export { MANIFEST_PATH, applyPlan, exitCodeFor, formatReport, isUpToDate } from './write/index.js'
