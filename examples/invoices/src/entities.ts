import { defineEntities } from '@a2a-agent/runtime/entities'

/** What agents may reach in this app, and as whom. `npm run generate` turns this into tools and skills. */
export default defineEntities({
  invoices: {
    model: 'Invoice',
    ownerField: 'userId',
    description: "The caller's invoices",
    hidden: ['note'],
    readOnly: ['paid'],
  },
  customers: {
    model: 'Customer',
    ownerField: 'userId',
    operations: ['list', 'get', 'create'],
    description: "The caller's customers",
  },
})
