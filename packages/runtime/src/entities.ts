/**
 * `@a2a-agent/runtime/entities`: just the entity declaration helper and its types. An app's
 * `src/entities.ts` imports from here, so `a2a generate entities` loads it without the whole
 * runtime (MCP SDK, validators), which keeps regeneration fast.
 * @module
 */
export { defineEntities, ENTITY_OPERATIONS } from './entity/declarations.js'
export type { EntityDeclaration, EntityDeclarations, EntityOperation } from './entity/declarations.js'
