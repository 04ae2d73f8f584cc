/**
 * The identifiers one entity's generated code uses, derived once so every file (the entity's
 * module, its hooks, its tests, the barrel) names things the same way.
 * @module
 */
import type { EntityOperation } from '@a2a-agent/runtime'
import { camelCase, fileStem, pascalCase, skillId, toolName, words } from '../names.js'
import type { ResolvedEntity } from '../read/resolved.js'

export interface EntityNames {
  /** `invoices` → file stem `invoices`, `invoiceLines` → `invoice-lines`. */
  stem: string
  /** `invoicesTools` */
  toolsFunction: string
  /** `InvoiceRow` */
  row: string
  /** `presentInvoice` */
  present: string
  /** `invoice`, `invoice line`: how messages name one row. */
  singular: string
  skill: string
  operations: Record<EntityOperation, OperationNames>
}

export interface OperationNames {
  /** `invoices_list` */
  tool: string
  /** `invoicesListSchema` */
  schema: string
  /** `InvoicesListInput` */
  input: string
  /** `listInvoices`, `getInvoice` */
  function: string
}

export function entityNames(entity: ResolvedEntity): EntityNames {
  // Model names are PascalCase already; keep their spelling (A2ATask, not A2aTask).
  const model = entity.model.charAt(0).toUpperCase() + entity.model.slice(1)
  const plural = pascalCase(entity.name)
  const operation = (op: EntityOperation): OperationNames => ({
    tool: toolName(entity.name, op, entity.namespace),
    schema: `${camelCase(entity.name)}${pascalCase(op)}Schema`,
    input: `${plural}${pascalCase(op)}Input`,
    function: `${op}${op === 'list' ? plural : model}`,
  })
  return {
    stem: fileStem(entity.name),
    toolsFunction: `${camelCase(entity.name)}Tools`,
    row: `${model}Row`,
    present: `present${model}`,
    singular: words(entity.model).join(' '),
    skill: skillId(entity.name, entity.namespace),
    operations: {
      list: operation('list'),
      get: operation('get'),
      create: operation('create'),
      update: operation('update'),
      delete: operation('delete'),
    },
  }
}
