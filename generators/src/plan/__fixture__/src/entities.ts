import { defineEntities } from '@a2a-agent/runtime/entities'

/** The golden fixture's entities: every option the generator reads is set on one of them. */
export default defineEntities({
  invoices: {
    model: 'Invoice',
    ownerField: 'userId',
    tenantField: 'orgId',
    hidden: ['note'],
    readOnly: ['paid'],
    scopes: { 'invoices:read': ['list', 'get'], 'invoices:write': ['list', 'get', 'create', 'update', 'delete'] },
    description: 'Invoices the caller has issued',
  },
  notes: {
    model: 'Note',
    ownerField: 'authorId',
    namespace: 'crm',
    operations: ['list', 'get', 'create', 'delete'],
  },
})
