/**
 * The public agent card, derived from the registered skills and the capabilities this server
 * actually serves, so the card cannot promise what the exchange refuses.
 * @module
 */
import type { Skill } from '../skills/skill.js'
import type { AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill } from '../wire/types.js'

export interface CardOptions {
  name: string
  description: string
  /** The agent's own version (not the protocol's). */
  version: string
  /** Absolute base URL callers reach this server at; derived from each request's Host when absent. */
  publicUrl?: string
  provider?: AgentProvider
  documentationUrl?: string
  iconUrl?: string
  defaultInputModes?: string[]
  defaultOutputModes?: string[]
  securitySchemes?: Record<string, unknown>
  securityRequirements?: { schemes: Record<string, { list: string[] }> }[]
  /** Cache lifetime for the card, in seconds. */
  maxAgeSeconds?: number
  /** `'authenticated'`: the card is served only to callers with a credential (401 otherwise). Default `'public'`. */
  access?: 'public' | 'authenticated'
  /** Which registered skills the public card lists (default all); the others can go on the extended card. */
  publicSkills?: (skill: AgentSkill) => boolean
}

export const DEFAULT_INPUT_MODES = ['text/plain', 'application/json']
export const DEFAULT_OUTPUT_MODES = ['text/plain', 'application/json']

export function skillToCard(skill: Skill): AgentSkill {
  return {
    id: skill.id,
    name: skill.name ?? skill.id,
    description: skill.description,
    tags: skill.tags?.length ? skill.tags : [skill.id],
    ...(skill.examples?.length ? { examples: skill.examples } : {}),
    ...(skill.inputModes?.length ? { inputModes: skill.inputModes } : {}),
    ...(skill.outputModes?.length ? { outputModes: skill.outputModes } : {}),
  }
}

/** The card's `supportedInterfaces`, in order of preference: JSON-RPC first, then HTTP+JSON. */
export function agentInterfaces(urls: { jsonRpc?: string | undefined; rest?: string | undefined }): AgentInterface[] {
  return [
    ...(urls.jsonRpc ? [{ url: urls.jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] : []),
    ...(urls.rest ? [{ url: urls.rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] : []),
  ]
}

export function buildAgentCard(options: CardOptions, skills: Iterable<Skill>, interfaces: AgentInterface[], capabilities: AgentCapabilities): AgentCard {
  return {
    name: options.name,
    description: options.description,
    supportedInterfaces: interfaces,
    ...(options.provider ? { provider: options.provider } : {}),
    version: options.version,
    ...(options.documentationUrl ? { documentationUrl: options.documentationUrl } : {}),
    capabilities,
    ...(options.securitySchemes ? { securitySchemes: options.securitySchemes } : {}),
    ...(options.securityRequirements ? { securityRequirements: options.securityRequirements } : {}),
    defaultInputModes: options.defaultInputModes ?? DEFAULT_INPUT_MODES,
    defaultOutputModes: options.defaultOutputModes ?? DEFAULT_OUTPUT_MODES,
    skills: [...skills].map(skillToCard).filter((skill) => options.publicSkills?.(skill) ?? true),
    ...(options.iconUrl ? { iconUrl: options.iconUrl } : {}),
  }
}
