import { defineEntities } from '@a2a-agent/runtime/entities'

/**
 * What agents may reach in this app, and as whom. `npm run generate` turns each entity into MCP
 * tools and an A2A skill (src/a2a/*.gen.ts) with tests (test/entities/*.gen.test.ts).
 */
export default defineEntities({
  invoices: {
    model: 'Invoice',
    ownerField: 'userId',
    description: "The caller's invoices",
    hidden: ['note'],
    readOnly: ['paid'],
    // An API key made with --scopes reaches only what its scopes allow; a session reaches all.
    scopes: { 'invoices:read': ['list', 'get'], 'invoices:write': ['list', 'get', 'create', 'update', 'delete'] },
  },
  customers: {
    model: 'Customer',
    ownerField: 'userId',
    operations: ['list', 'get', 'create'],
    scopes: { 'customers:read': ['list', 'get'], 'customers:write': ['list', 'get', 'create'] },
    description: "The caller's customers",
  },
})
