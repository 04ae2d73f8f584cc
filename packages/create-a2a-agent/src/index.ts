/**
 * Programmatic access to the `a2a` CLI, for scripts and tests.
 * @module
 */
export type { RunOptions } from './cli/index.js'
export { runA2a } from './cli/index.js'
export type { GenerateEntitiesOptions, Planner } from './cli/generate-entities.js'
export { runGenerateEntities } from './cli/generate-entities.js'
export type { Io, Output } from './cli/io.js'
