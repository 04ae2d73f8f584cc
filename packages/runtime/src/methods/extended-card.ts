/**
 * GetExtendedAgentCard: the card for this caller, built by the exchange's extendedCard hook.
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'
import { tenantOnlyParams } from '../wire/params.js'
import { parse, type Method } from './method.js'

export const GetExtendedAgentCard: Method =
  ({ extendedCard }) =>
  async (core, caller, raw) => {
    parse(core, tenantOnlyParams, raw)
    if (!extendedCard) {
      throw new A2AError('EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'This agent has no extended agent card (capabilities.extendedAgentCard is false); read its public card')
    }
    return extendedCard(caller, caller.baseUrl ?? 'http://localhost')
  }
