/**
 * Entity declarations: which Prisma models agents may reach, as whom, and how. An app writes them
 * once in a typed file (`defineEntities`); `a2a generate entities` reads them with the Prisma schema.
 * @module
 */

export const ENTITY_OPERATIONS = ['list', 'get', 'create', 'update', 'delete'] as const
export type EntityOperation = (typeof ENTITY_OPERATIONS)[number]

export interface EntityDeclaration {
  /** The Prisma model, e.g. `Invoice`. */
  model: string
  /** Expose MCP tools (and the derived `entity.<name>` skill). Default true. */
  mcp?: boolean
  /**
   * The scalar field holding the owning user's id. Required for an entity with tools: per-user data
   * has no anonymous posture. It is set from the caller on create and added to every query.
   */
  ownerField?: string
  /** The scalar field holding the tenant id, set and matched like the owner field. */
  tenantField?: string
  /**
   * Which credential scopes allow which operations, with names the app chooses, e.g.
   * `{ 'invoices:read': ['list', 'get'], 'invoices:write': ['create', 'update', 'delete'] }`.
   * A scoped caller (an API key made with `--scopes`) sees and calls only the tools its scopes
   * allow; a session (no scopes) keeps every operation. Unset: scoped callers reach none.
   */
  scopes?: Readonly<Record<string, readonly EntityOperation[]>>
  /** Operations exposed; default all five. */
  operations?: readonly EntityOperation[]
  /** MCP namespace: tools become `<namespace>_<entity>_<operation>`, the skill `entity.<namespace>.<entity>`. */
  namespace?: string
  /**
   * Fields agents never see nor filter by. Fields named like credentials (password, passwordHash,
   * salt, secret, token, apiKey, accessToken, …) are hidden without being listed here.
   */
  hidden?: readonly string[]
  /**
   * Fields named like credentials that agents may see and write all the same (e.g. a token hash an
   * admin tool uploads). An entity whose owner is its own id (the caller's user row) exposes none.
   */
  exposed?: readonly string[]
  /** Fields agents see but may not write. */
  readOnly?: readonly string[]
  /**
   * Foreign keys into models that are not entities which agents may set. Such a key has no
   * ownership check (agents may name any row of that model), so it is left out unless listed. A
   * key of several columns (`fields: [binZone, binShelf]`) is listed with all of its fields.
   */
  writableReferences?: readonly string[]
  /** What the entity is, for tool and skill descriptions. */
  description?: string
}

export type EntityDeclarations = Record<string, EntityDeclaration>

/** Identity with type checking: `export default defineEntities({ invoices: { model: 'Invoice', ownerField: 'userId' } })`. */
export function defineEntities<const T extends EntityDeclarations>(entities: T): T {
  return entities
}
